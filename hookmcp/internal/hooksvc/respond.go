package hooksvc

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/mcpforge/servers/shared/httpx"
)

// Response is what a sender held waiting by a listening token receives.
type Response struct {
	Status  int
	Content []byte
	Header  http.Header
}

// Delivery is what the API said of a response set for a request.
type Delivery int

const (
	// DeliveryUnknown: the API accepted the response with an answer of
	// another shape than the two below; Answer shows it.
	DeliveryUnknown Delivery = iota
	// Delivered: {"status":3}, a held sender took the response.
	Delivered
	// NoSenderWaiting: {"status":2}, which is reported (unconfirmed) to
	// mean that no sender was held for the request: it had gone, or the
	// token did not listen when it came.
	NoSenderWaiting
)

// maxDeliveryAnswerBytes bounds the API's answer to a set response: a
// small JSON object.
const maxDeliveryAnswerBytes = 64 << 10

// maxShownAnswer bounds the API's answer as an outcome of unknown shape
// shows it.
const maxShownAnswer = 200

// SetResponse sets the response of the held sender of a captured request:
// PUT /token/{id}/request/{rid}/response, with the content in base64 and
// each header's values as a list, as the official CLI sends them. It is
// sent once: a second attempt after an answer that was lost would find no
// sender waiting and say so, hiding that the first one was delivered.
// answer is the API's JSON answer as received (redacted, bounded).
func (cl *Client) SetResponse(ctx context.Context, key string, id TokenID, requestID RequestID, r Response) (d Delivery, answer string, err error) {
	headers := map[string][]string{}
	for name, values := range r.Header {
		headers[name] = values
	}
	c := requestCall(http.MethodPut, key, id, requestID, "/response", "Setting the response of")
	c.Body = map[string]any{"status": r.Status, "content": base64.StdEncoding.EncodeToString(r.Content), "headers": headers}
	c.maxBytes = maxDeliveryAnswerBytes
	resp, err := cl.Do(ctx, c)
	if err != nil {
		return DeliveryUnknown, "", setFailed(err)
	}
	return cl.delivery(c, resp)
}

// setFailed says, of a set response that failed, whether the sender may
// have received it: the usual advice to try again is wrong here, since a
// second call finds no sender and cannot tell whether the first reached it.
func setFailed(err error) error {
	var status *StatusError
	switch {
	case errors.As(err, &status) && status.Status == http.StatusTooManyRequests:
		return fmt.Errorf("%w. Nothing was set; a sender is held for the token's listen seconds only (10 s at most) after it sends, "+
			"so it may be gone by then: when it is, have the sender send again and answer the new request", err)
	case errors.As(err, &status) && status.Status < 500:
		return fmt.Errorf("%w. Nothing was set", err)
	}
	return fmt.Errorf("%w. Whether the response was set, and the sender received it, is unknown: the call may have reached the API before it failed. "+
		"set_response is sent once, since a second set_response would find no sender waiting and could not tell; "+
		"to know, look at what the sender received (its logs), or have it send again and answer the new request", err)
}

// delivery reads the API's answer to a set response. The answer is taken
// only from what is the API's: a web page or another server's body says
// nothing was set.
func (cl *Client) delivery(c Call, resp *httpx.Answer) (Delivery, string, error) {
	body := bytes.TrimSpace(resp.Body)
	if len(body) == 0 {
		return DeliveryUnknown, fmt.Sprintf("HTTP %d with an empty body", resp.Status), nil
	}
	if httpx.IsWebPage(resp.Header, resp.Body) {
		return DeliveryUnknown, "", cl.webPageError(c, resp)
	}
	if message, ok := apiRefusal(body); ok {
		return DeliveryUnknown, "", cl.refusedWith2xx(c, resp, message)
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(body, &members) != nil {
		return DeliveryUnknown, "", cl.foreignSuccess(c, resp, "a body that is not a JSON object, not the capture API's answer to a set response")
	}
	answer := httpx.Snippet(body, maxShownAnswer)
	var status int
	if json.Unmarshal(members["status"], &status) == nil {
		switch status {
		case 3:
			return Delivered, answer, nil
		case 2:
			return NoSenderWaiting, answer, nil
		}
	}
	return DeliveryUnknown, answer, nil
}
