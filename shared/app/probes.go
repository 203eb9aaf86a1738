package app

import "net/http"

// addProbes serves the probes a process supervisor or load balancer asks:
// /healthz says the process is alive, needs no token and tells nothing.
func addProbes(mux *http.ServeMux) {
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
}
