package fakehooksvc

import "net/http"

// socketHub will push each capture to the socket subscribers of its token,
// as the hosted service's Socket.IO server does.
type socketHub struct{}

func newSocketHub() *socketHub { return &socketHub{} }

// serveSocket serves /socket.io/; none yet.
func (s *Server) serveSocket(w http.ResponseWriter, r *http.Request) {
	http.NotFound(w, r)
}

// announce tells the token's subscribers of a capture. It is called with
// s.mu held, so it must not block.
func (s *Server) announce(t *token, req *request) {}
