package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/shared/mcptool"
	"github.com/mcpforge/servers/shared/redact"
)

// GetRequestArgs are get_request's arguments.
type GetRequestArgs struct {
	RequestArg
	// File is told of in the description, which says what it takes.
	File string `json:"file,omitempty"`
}

// maxFileIDChars bounds the file argument: the service's ids are short.
const maxFileIDChars = 200

func (h *handlers) getRequestTool() mcptool.Tool[GetRequestArgs, RequestResult] {
	return mcptool.Tool[GetRequestArgs, RequestResult]{
		Name:         "get_request",
		Title:        "Get one captured request",
		Description:  "Get one captured request by id, as get_latest_request gives it; with file (an id in files), that upload's bytes as body.",
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(true)},
		AdjustInput:  adjustRequestArg,
		AdjustOutput: adjustRequestResult,
		Verbatim:     []string{"body", "note"},
		ThirdParty:   true, // the sender wrote its URL, headers, fields
		Handle:       h.getRequest,
	}
}

// getRequest reads the request object, then its raw body: the object's
// content is the body as the API decoded it into a string, the raw one is
// the bytes as they arrived. With file, the body is that uploaded file's
// bytes instead: the hosted service keeps no multipart body.
func (h *handlers) getRequest(ctx context.Context, _ *mcp.CallToolRequest, args GetRequestArgs) (*mcp.CallToolResult, RequestResult, error) {
	id, key, requestID, err := h.request(args.RequestArg)
	if err != nil {
		return nil, RequestResult{}, err
	}
	// The file argument is shown in errors, and may hold a key.
	secrets := redact.New(h.cfg.APIKey, key)
	if err := checkFileID(args.File); err != nil {
		return nil, RequestResult{}, errors.New(secrets.String(err.Error()))
	}
	item, err := h.client.GetRequest(ctx, key, id, requestID)
	if err != nil {
		return nil, RequestResult{}, err
	}
	meta, err := decodeMeta(item)
	if err != nil {
		return nil, RequestResult{}, err
	}
	// The path's id is the one asked for, whatever the object says.
	meta.UUID = requestID
	if args.File != "" {
		out, err := h.fileResult(ctx, key, id, meta, args.File)
		if err != nil {
			return nil, RequestResult{}, errors.New(secrets.String(err.Error()))
		}
		return mcptool.Text(requestText("File of request", out)...), out, nil
	}
	out, err := h.requestResult(ctx, key, id, meta)
	if err != nil {
		return nil, RequestResult{}, err
	}
	h.seeMeta(id, meta)
	return mcptool.Text(requestText("Request", out)...), out, nil
}

// checkFileID refuses a file argument that no service id looks like.
func checkFileID(file string) error {
	if len(file) > maxFileIDChars || strings.ContainsFunc(file, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) {
		return fmt.Errorf("file must be the id of one of the request's files, as its files member gives it (at most %d characters, no spaces or control characters); got %s. "+
			"get_request without file lists them", maxFileIDChars, hooksvc.Quote(file))
	}
	return nil
}

// fileResult is the request described by meta, with the bytes of its
// uploaded file named by file (its id, or its field's name) as the body.
func (h *handlers) fileResult(ctx context.Context, key string, id hooksvc.TokenID, meta requestMeta, file string) (RequestResult, error) {
	files := meta.files()
	var found *uploadedFile
	for i, f := range files {
		if f.ID != "" && (f.ID == file || (found == nil && f.Field == file)) {
			found = &files[i]
		}
	}
	if found == nil {
		listed := "it has no files (file reads an upload of a multipart request)"
		if len(files) > 0 {
			names := make([]string, 0, len(files))
			for _, f := range files {
				names = append(names, f.describe())
			}
			listed = "its files are: " + strings.Join(firstN(names, maxNoteNames), "; ") + ". Pass one of their ids"
		}
		return RequestResult{}, fmt.Errorf("file %s is not a file of request %s: %s", hooksvc.Quote(file), meta.UUID, listed)
	}
	data, err := h.client.DownloadFile(ctx, key, id, meta.UUID, found.ID)
	if err != nil {
		return RequestResult{}, err
	}
	out := metaResult(id, meta)
	out.ContentType = found.ContentType
	out.setBody(data)
	out.Note = strings.TrimSpace(fmt.Sprintf("The body is the file %s uploaded in this request, not the request's body.", found.describe()) + " " + out.Note)
	return out, nil
}
