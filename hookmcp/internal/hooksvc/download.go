package hooksvc

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/mcpforge/servers/shared/httpx"
)

// MaxFileBytes bounds a file read from a capture: the service refuses
// captures over 10 MB, so no file of one is larger.
const MaxFileBytes = 10 << 20

// maxFileIDBytes bounds a file id hookmcp sends: the service's are UUIDs.
const maxFileIDBytes = 200

// DownloadFile returns the bytes of a file uploaded in a multipart capture.
// The hosted service keeps no multipart body, only its fields and files; a
// file is at /token/{id}/request/{rid}/download/{fileId}, which answers with
// a redirect to its storage. That one hop is followed, without the API key
// (the storage is another host, and the signed URL is the only credential
// it needs), only to https (or to the API's own origin, which the user
// chose), and never a second one. An answer of the file itself, without a
// redirect, is taken too.
func (cl *Client) DownloadFile(ctx context.Context, key string, id TokenID, requestID RequestID, fileID string) ([]byte, error) {
	// The id is the API's word, sent in the path and quoted in errors:
	// bounded and escaped in both.
	c := requestCall(http.MethodGet, key, id, requestID, "/download/"+url.PathEscape(fileID), "Downloading file "+Quote(fileID)+" of")
	if len(fileID) > maxFileIDBytes {
		return nil, fmt.Errorf("%s failed: the capture API gave the file an id of %d bytes, over the %d an id can be, so nothing was fetched", c.doing(), len(fileID), maxFileIDBytes)
	}
	c.expect, c.maxBytes = expectRedirect, MaxFileBytes
	resp, err := cl.readFresh(ctx, c)
	var tooLarge *httpx.TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		return nil, fmt.Errorf("%s failed: the file is over %d MiB", c.doing(), MaxFileBytes>>20)
	case err != nil:
		return nil, err
	case !isRedirect(resp.Status):
		return resp.Body, nil
	}
	ctx, cancel := httpx.WithTimeout(ctx, cl.Timeout)
	defer cancel()
	loc := cl.location(c, resp)
	if loc == nil {
		return nil, fmt.Errorf("%s failed: the capture API answered HTTP %d, a redirect without a usable Location, where it sends the file's storage address", c.doing(), resp.Status)
	}
	secrets := cl.secrets(key)
	shown := secrets.String(httpx.DisplayURL(loc))
	sameOrigin := httpx.SameOrigin(loc, cl.BaseURL)
	if loc.User != nil || (loc.Scheme != "https" && !sameOrigin) {
		return nil, fmt.Errorf("%s failed: the capture API sent the file's address as %s, which is not https: hookmcp follows the storage redirect only to https (or to the API's own address), so nothing was fetched", c.doing(), shown)
	}
	// The storage host is another party: an address that carries the API
	// key (an API that signs storage URLs with the caller's key, or a
	// hostile one echoing it) would hand the key to it.
	if secrets.Contains(loc.String()) {
		return nil, fmt.Errorf("%s failed: the capture API sent the file's storage address (%s) holding the API key; hookmcp does not send the key to another host, so nothing was fetched", c.doing(), shown)
	}
	if !sameOrigin && !cl.apiOnInternalAddress() {
		ctx = context.WithValue(ctx, storageRuleKey{}, httpx.AddressRule(publicAddress))
	}
	// No Api-Key and no cookie: only what the signed URL itself carries.
	answer, err := cl.Caller.Do(ctx, httpx.Outbound{Method: http.MethodGet, URL: loc, Header: http.Header{}, MaxBytes: MaxFileBytes, Redactor: secrets})
	if errors.As(err, &tooLarge) {
		return nil, fmt.Errorf("%s failed: the file is over %d MiB", c.doing(), MaxFileBytes>>20)
	}
	if failure := httpx.AsFailure(err); failure != nil && failure.Kind == httpx.RefusedAddress {
		return nil, fmt.Errorf("%s failed: the capture API sent the file's storage address on %s, and %s; nothing was fetched", c.doing(), Clip(secrets.String(loc.Host)), secrets.String(failure.Reason))
	}
	if failure := httpx.AsFailure(err); failure != nil {
		return nil, cl.unreachable(c.doing(), "the file's storage at "+loc.Host, failure)
	}
	if err != nil {
		return nil, fmt.Errorf("%s failed: %w", c.doing(), err)
	}
	switch {
	case answer.Status >= 300 && answer.Status < 400:
		return nil, fmt.Errorf("%s failed: the file's storage at %s redirected again (HTTP %d); hookmcp follows one redirect only, so nothing was fetched", c.doing(), loc.Host, answer.Status)
	case answer.Status < 200 || answer.Status >= 300:
		return nil, fmt.Errorf("%s failed: the file's storage at %s answered HTTP %d %s: its signed address may have expired; try again", c.doing(), loc.Host, answer.Status, http.StatusText(answer.Status))
	}
	return answer.Body, nil
}

// storageRuleKey marks the context of a storage hop with the address rule
// it must pass (StorageGuard reads it).
type storageRuleKey struct{}

// StorageGuard is the address rule of a request (httpx.Options.Guard): a
// hop to a file's storage on another host than the API's must reach a
// public address, since that address is the API's word, not the user's;
// every other request, the API's own included, has no rule.
func StorageGuard(ctx context.Context) httpx.AddressRule {
	rule, _ := ctx.Value(storageRuleKey{}).(httpx.AddressRule)
	return rule
}

// cgnat is the shared address space (RFC 6598), where some clouds keep
// their metadata service (Alibaba's 100.100.100.200).
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// publicAddress refuses loopback, private, link-local (cloud metadata at
// 169.254.169.254 included), shared, multicast and unspecified addresses.
func publicAddress(addr netip.Addr) error {
	addr = addr.Unmap()
	if addr.IsLoopback() || addr.IsPrivate() || addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() ||
		addr.IsInterfaceLocalMulticast() || addr.IsMulticast() || addr.IsUnspecified() || cgnat.Contains(addr) {
		return errors.New("hookmcp reaches a file's storage on a loopback, private, link-local or cloud metadata address only when the capture API itself is on one (HOOKSVC_API_URL)")
	}
	return nil
}

// apiOnInternalAddress reports an API whose base URL is on an internal
// address, judged by its host alone: an IP address that publicAddress
// refuses, localhost, a name of one label, or a name under a suffix kept
// for internal networks. Its storage may be internal too.
func (cl *Client) apiOnInternalAddress() bool {
	host := strings.ToLower(strings.TrimSuffix(cl.BaseURL.Hostname(), "."))
	if addr, err := netip.ParseAddr(host); err == nil {
		return publicAddress(addr) != nil
	}
	if !strings.Contains(host, ".") {
		return true
	}
	for _, suffix := range []string{".localhost", ".internal", ".local", ".lan", ".home.arpa"} {
		if strings.HasSuffix(host, suffix) {
			return true
		}
	}
	return false
}
