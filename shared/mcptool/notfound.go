package mcptool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/jsonx"
)

// NotFoundInvalidParamsSince is the protocol version from which a resource
// that does not exist is an invalid-params error (-32602, SEP-2164); the
// versions before it define -32002, "resource not found".
const NotFoundInvalidParamsSince = "2026-07-28"

// codeNotFoundBefore is the "resource not found" code of the protocol
// versions before NotFoundInvalidParamsSince.
const codeNotFoundBefore = -32002

// ResourceNotFound is the error for a read of uri that names no resource,
// with the code the client's protocol version defines and advice a reader
// can follow.
// The message quotes at most maxQuotedURI characters of uri, and the
// error's data (the spec's {"uri": …}) is left out for a uri over
// maxDataURI bytes: an answer is bounded whatever was asked.
func ResourceNotFound(req *mcp.ReadResourceRequest, uri, advice string) error {
	var data json.RawMessage
	if len(uri) <= maxDataURI {
		data, _ = jsonx.Marshal(map[string]string{"uri": uri})
	}
	shown := uri
	if n := utf8.RuneCountInString(uri); n > maxQuotedURI {
		shown = fmt.Sprintf("%s… (%d characters)", string([]rune(uri)[:maxQuotedURI]), n)
	}
	message := "Resource not found: " + shown
	if advice != "" {
		message += ": " + advice
	}
	return &jsonrpc.Error{Code: notFoundCode(req), Message: message, Data: data}
}

// Bounds of what a not-found error repeats of the URI asked for.
const (
	maxQuotedURI = 200
	maxDataURI   = 2048
)

func notFoundCode(req *mcp.ReadResourceRequest) int64 {
	if negotiatedVersion(req) >= NotFoundInvalidParamsSince {
		return jsonrpc.CodeInvalidParams
	}
	return codeNotFoundBefore
}

// negotiatedVersion is the protocol version a request is answered under:
// the one its own _meta names (2026-07-28 and later carry it in every
// request), else the one initialize agreed. req.ProtocolVersion() gives, for
// the latter, the version the client asked for, which the server may not
// have agreed to: the go-sdk's initialize answers at most 2025-11-25, and
// an unknown version (2099-01-01) with its latest before that.
func negotiatedVersion(req *mcp.ReadResourceRequest) string {
	if req.Params != nil {
		if v, ok := req.Params.GetMeta()[mcp.MetaKeyProtocolVersion].(string); ok && v != "" {
			return v
		}
	}
	asked := req.ProtocolVersion()
	supported := mcp.SupportedProtocolVersions()
	if slices.Contains(supported, asked) && asked < NotFoundInvalidParamsSince {
		return asked
	}
	for _, v := range supported { // newest first
		if v < NotFoundInvalidParamsSince {
			return v
		}
	}
	return asked
}

// NotFoundByVersion is a receiving middleware that gives the go-sdk's own
// "Resource not found" (a URI that matches no resource or template, which
// the SDK answers -32602 whatever the protocol version) the code of the
// client's version, so that every not-found a server sends has one code
// per version, and says which URIs exist.
func NotFoundByVersion(known string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			result, err := next(ctx, method, req)
			read, ok := req.(*mcp.ReadResourceRequest)
			var rpcErr *jsonrpc.Error
			if !ok || method != "resources/read" || !errors.As(err, &rpcErr) || rpcErr.Message != "Resource not found" {
				return result, err
			}
			return nil, ResourceNotFound(read, read.Params.URI, "this server has no such resource; "+known)
		}
	}
}
