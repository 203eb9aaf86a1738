// Package pipenet is an in-memory network for tests: an HTTP server and its
// clients connected by buffered in-memory pipes built on channels. Inside a
// testing/synctest bubble a goroutine blocked on a channel is durably
// blocked, so the bubble's clock moves past pings, timeouts and backoffs at
// once, which it cannot do while a goroutine waits on a real socket (or on
// net.Pipe, whose writers queue on a mutex). The buffer stands for a TCP
// connection's: two peers that write at once do not wait for each other.
package pipenet

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// Listener accepts the connections Dial makes.
type Listener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// Listen returns a listener with nothing connected.
func Listen() *Listener {
	return &Listener{conns: make(chan net.Conn), done: make(chan struct{})}
}

// Accept waits for a Dial.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close makes Accept and Dial fail.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr is a placeholder address.
func (l *Listener) Addr() net.Addr { return addr{} }

// Dial connects to the listener, whatever the address.
func (l *Listener) Dial(ctx context.Context, _, _ string) (net.Conn, error) {
	server, client := Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, errors.New("connection refused: the listener is closed")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Client is an HTTP client that dials the listener, following no
// redirect; its idle connections close when ctx ends.
func (l *Listener) Client() *http.Client {
	return &http.Client{
		Transport:     &http.Transport{DialContext: l.Dial, DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Serve serves handler on a new listener until the returned stop is
// called, which closes every connection and waits for the server's
// goroutines.
func Serve(handler http.Handler) (l *Listener, stop func()) {
	l = Listen()
	server := &http.Server{Handler: handler}
	served := make(chan struct{})
	go func() {
		defer close(served)
		server.Serve(l)
	}()
	return l, func() {
		server.Close()
		<-served
	}
}

type addr struct{}

func (addr) Network() string { return "pipe" }
func (addr) String() string  { return "pipe" }

// pipeBuffer is how many writes a pipe holds before a writer waits.
const pipeBuffer = 256

// Pipe returns the two ends of a buffered in-memory connection.
func Pipe() (net.Conn, net.Conn) {
	ab, ba := make(chan []byte, pipeBuffer), make(chan []byte, pipeBuffer)
	a := &conn{in: ba, out: ab, closed: make(chan struct{}), rd: newDeadline(), wd: newDeadline()}
	b := &conn{in: ab, out: ba, closed: make(chan struct{}), rd: newDeadline(), wd: newDeadline()}
	a.peer, b.peer = b, a
	return a, b
}

type conn struct {
	in      <-chan []byte
	out     chan<- []byte
	peer    *conn
	pending []byte // read from in, not yet returned
	closed  chan struct{}
	once    sync.Once
	rd, wd  *deadline
}

func (c *conn) Read(b []byte) (int, error) {
	if len(c.pending) == 0 {
		select {
		case chunk := <-c.in:
			c.pending = chunk
		case <-c.closed:
			return 0, net.ErrClosed
		case <-c.rd.done():
			return 0, os.ErrDeadlineExceeded
		case <-c.peer.closed:
			// What the peer wrote before closing is still read.
			select {
			case chunk := <-c.in:
				c.pending = chunk
			default:
				return 0, errors.New("EOF: the peer closed the connection")
			}
		}
	}
	n := copy(b, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

func (c *conn) Write(b []byte) (int, error) {
	select {
	case c.out <- append([]byte(nil), b...):
		return len(b), nil
	case <-c.closed:
		return 0, net.ErrClosed
	case <-c.peer.closed:
		return 0, errors.New("broken pipe: the peer closed the connection")
	case <-c.wd.done():
		return 0, os.ErrDeadlineExceeded
	}
}

func (c *conn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *conn) LocalAddr() net.Addr  { return addr{} }
func (c *conn) RemoteAddr() net.Addr { return addr{} }

func (c *conn) SetDeadline(t time.Time) error {
	c.rd.set(t)
	c.wd.set(t)
	return nil
}
func (c *conn) SetReadDeadline(t time.Time) error  { c.rd.set(t); return nil }
func (c *conn) SetWriteDeadline(t time.Time) error { c.wd.set(t); return nil }

// deadline is a channel closed when its time passes.
type deadline struct {
	mu    sync.Mutex
	timer *time.Timer
	ch    chan struct{}
}

func newDeadline() *deadline { return &deadline{ch: make(chan struct{})} }

func (d *deadline) set(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil {
		d.timer.Stop()
		d.timer = nil
	}
	select {
	case <-d.ch:
		d.ch = make(chan struct{})
	default:
	}
	if t.IsZero() {
		return
	}
	ch := d.ch
	if wait := time.Until(t); wait <= 0 {
		close(ch)
	} else {
		d.timer = time.AfterFunc(wait, func() { close(ch) })
	}
}

func (d *deadline) done() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ch
}
