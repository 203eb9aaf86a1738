package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// webhookBody is what each captured request of the resource measure
// carries: a push event of the size a small real webhook has (about 600
// bytes).
const webhookBody = `{"ref":"refs/heads/main","before":"6113728f27ae82c7b1a177c8d03f9e96e0adf246","after":"59b20b8d5c6ff8d09518454d4dd8b7a30f095ab5",` +
	`"repository":{"id":1296269,"full_name":"octocat/Hello-World","private":false,"html_url":"https://github.com/octocat/Hello-World"},` +
	`"pusher":{"name":"octocat","email":"octocat@github.com"},"head_commit":{"id":"59b20b8d5c6ff8d09518454d4dd8b7a30f095ab5",` +
	`"message":"Update README.md","timestamp":"2026-11-22T10:00:00Z","author":{"name":"The Octocat","email":"octocat@github.com"},` +
	`"added":[],"removed":[],"modified":["README.md"]}}`

func (b *bench) hooks(ctx context.Context) error {
	fmt.Fprintln(os.Stderr, "hookmcp:")
	// The fake spells its JSON as the hosted service's PHP does (every / as
	// \/, every character beyond ASCII as \uXXXX), which hookmcp respells
	// request by request: where the fake and the service differ, the
	// service's spelling is the one users read through, so it is the one
	// measured. The plain client's pages are the same bytes.
	api, _, err := b.procs.Start("fakehooksvc", "-listen", "127.0.0.1:0", "-php-escapes", "-api-keys", benchAPIKey)
	if err != nil {
		return err
	}
	l := launch{server: "hookmcp", path: filepath.Join(b.procs.Bin, "hookmcp"), env: []string{"HOOKSVC_API_URL=" + api}, version: true}
	s, err := b.measured(ctx, l)
	if err != nil {
		return err
	}
	defer s.Close()
	id, err := createToken(ctx, s.ClientSession)
	if err != nil {
		return err
	}
	if err := b.latency(ctx, "hookmcp", s, "get_token", map[string]any{"token_id": id}, func() error {
		_, err := fetch(ctx, http.MethodGet, api+"/token/"+id, "")
		return err
	}); err != nil {
		return err
	}
	if err := b.resource(ctx, l, api); err != nil {
		return err
	}
	return b.wakeUpModes(ctx, l, api)
}

// benchAPIKey is a made-up key the fake is started to accept. A user of the
// hosted service reads the resource with their key configured (its
// description says so), and hookmcp then redacts the key from every page it
// reads, so the resource is also measured with it.
const benchAPIKey = "bench-3f9c27e1a5d84b60"

func createToken(ctx context.Context, s *mcp.ClientSession) (string, error) {
	created, err := callOK(ctx, s, "create_token", map[string]any{})
	if err != nil {
		return "", err
	}
	var token struct {
		Token struct {
			UUID string `json:"uuid"`
		} `json:"token"`
	}
	raw, _ := json.Marshal(created.StructuredContent)
	if err := json.Unmarshal(raw, &token); err != nil || token.Token.UUID == "" {
		return "", fmt.Errorf("create_token gave no uuid: %s", raw)
	}
	return token.Token.UUID, nil
}

// resource reads hooksvc://token/{id}/requests of a token holding the run's
// captures (10,000 in the full run, the most a token keeps), each read in a
// fresh server whose size budget lets it read them all, in rounds: the
// read's wall time through the Go SDK's client, and through a bare stdio
// session that only reads the answer's line (the server's time and the
// pipe's, without a client decoding 15 MB of JSON), with HOOKSVC_API_KEY
// and without, against plain requests for the same pages; the server's CPU
// and the client's; the text's size, and the server's peak RSS against it.
//
// The machine is shared, and its load moves within seconds: so each round
// fetches the plain pages right before and right after its bare reads, and
// each bare read is held to the mean of those two fetches. The time
// ratios are the median of the rounds' ratios, every other figure the
// median of the rounds, and the load average is reported with them.
func (b *bench) resource(ctx context.Context, l launch, api string) error {
	l.args = []string{"--resource-max-bytes", fmt.Sprint(256 << 20)}
	s, _, err := connect(ctx, l)
	if err != nil {
		return err
	}
	id, err := createToken(ctx, s.ClientSession)
	s.Close()
	if err != nil {
		return err
	}
	if err := capture(ctx, api+"/"+id, b.sizes.captures); err != nil {
		return err
	}
	uri := "hooksvc://token/" + id + "/requests"
	var reads, serverCPU, clientCPU, plain, plainAtOnce, keyedReads, keyedCPU []time.Duration
	var peaks, before, keyedPeaks, loads []float64
	// The bare reads, by kind: each a server's first read or its second,
	// without the key or with it; their times and their ratios to the
	// plain fetches around them.
	kinds := []struct {
		name  string
		key   bool
		read  int
		took  []time.Duration
		ratio []float64
	}{{name: "answer delivered", read: 0}, {name: "answer delivered, second read", read: 1},
		{name: "answer delivered, with a key", key: true, read: 0}, {name: "answer delivered, with a key, second read", key: true, read: 1}}
	keyed := l
	keyed.env = append(slices.Clip(l.env), "HOOKSVC_API_KEY="+benchAPIKey)
	payload := 0
	plainFetch := func(width int) (time.Duration, error) { return fetchPages(ctx, api, id, b.sizes.captures, width) }
	for range b.sizes.resourceRounds {
		loads = append(loads, loadAverage())
		// The plain fetch; two reads in a fresh server without the key,
		// two in one with it; the plain fetch again: the pair the reads
		// are held to. A server's first read is cold (its heap not grown
		// yet, its connections to the API not open), as a user's first
		// read is; its second is warm, as the plain client, which has
		// fetched the pages before, is.
		first, err := plainFetch(1)
		if err != nil {
			return err
		}
		plainTook, err := readResourceRaw(ctx, l, uri, b.sizes.captures, 2)
		if err != nil {
			return err
		}
		keyedTook, err := readResourceRaw(ctx, keyed, uri, b.sizes.captures, 2)
		if err != nil {
			return err
		}
		second, err := plainFetch(1)
		if err != nil {
			return err
		}
		around := float64(first+second) / 2
		plain = append(plain, first, second)
		for i := range kinds {
			took := plainTook[kinds[i].read]
			if kinds[i].key {
				took = keyedTook[kinds[i].read]
			}
			kinds[i].took, kinds[i].ratio = append(kinds[i].took, took), append(kinds[i].ratio, float64(took)/around)
		}
		loads = append(loads, loadAverage())
		r, err := readResource(ctx, l, uri, b.sizes.captures)
		if err != nil {
			return err
		}
		reads, serverCPU, clientCPU = append(reads, r.took), append(serverCPU, r.serverCPU), append(clientCPU, r.clientCPU)
		peaks, before, payload = append(peaks, r.peak), append(before, r.before), r.text
		if r, err = readResource(ctx, keyed, uri, b.sizes.captures); err != nil {
			return err
		}
		keyedReads, keyedCPU, keyedPeaks = append(keyedReads, r.took), append(keyedCPU, r.serverCPU), append(keyedPeaks, r.peak)
		// Four at a time, as the server reads them.
		atOnce, err := plainFetch(4)
		if err != nil {
			return err
		}
		plainAtOnce = append(plainAtOnce, atOnce)
	}
	rounds := b.sizes.resourceRounds
	label := fmt.Sprintf("%d requests of %d bytes each, the median of %d fresh servers", b.sizes.captures, len(webhookBody), rounds)
	pages := (b.sizes.captures + 99) / 100
	peak := medianOf(peaks)
	load := fmt.Sprintf("load average %.1f–%.1f over the rounds", slices.Min(loads), slices.Max(loads))
	b.add("hookmcp", "resource read", ms(median(reads)), "ms", label+", through the Go SDK's client")
	for _, k := range kinds {
		note := "the same read in a bare stdio session: the request written, the answer's line read whole, not decoded; a fresh server's first read"
		if k.read == 1 {
			note = "the same server's second read"
		}
		if k.key {
			note += ", HOOKSVC_API_KEY set"
		}
		b.add("hookmcp", "resource read: "+k.name, ms(median(k.took)), "ms", note)
	}
	b.add("hookmcp", "resource read: server CPU", ms(median(serverCPU)), "ms", "user + system")
	b.add("hookmcp", "resource read: client CPU", ms(median(clientCPU)), "ms", "the bench's Go SDK client reading and decoding the answer")
	b.add("hookmcp", "the same pages by plain HTTP", ms(median(plain)), "ms", fmt.Sprintf("%d pages of 100, one at a time, right before and after each round's bare reads", pages))
	b.add("hookmcp", "the same pages by plain HTTP, 4 at a time", ms(median(plainAtOnce)), "ms", fmt.Sprintf("%d pages of 100", pages))
	for _, k := range kinds {
		b.add("hookmcp", k.name+" ÷ plain fetch", medianOf(k.ratio), "×", fmt.Sprintf("each round's read against the mean of the plain fetches around it, the median of %d rounds (%s to %s); %s",
			rounds, number(slices.Min(k.ratio)), number(slices.Max(k.ratio)), load))
	}
	b.add("hookmcp", "resource text", mib(payload), "MiB", label)
	b.add("hookmcp", "resource peak RSS", peak, "MiB", fmt.Sprintf("VmHWM; %.1f MiB before the read", medianOf(before)))
	b.add("hookmcp", "resource peak RSS ÷ text", peak/mib(payload), "×", fmt.Sprintf("%s to %s over the rounds", number(slices.Min(peaks)/mib(payload)), number(slices.Max(peaks)/mib(payload))))
	b.add("hookmcp", "resource peak RSS over idle ÷ text", (peak-medianOf(before))/mib(payload), "×", "what the read added")
	withKey := "HOOKSVC_API_KEY set, as users read it: every page is searched for the key"
	b.add("hookmcp", "resource read, with a key", ms(median(keyedReads)), "ms", withKey+", through the Go SDK's client")
	b.add("hookmcp", "resource read, with a key: server CPU", ms(median(keyedCPU)), "ms", "user + system")
	b.add("hookmcp", "resource peak RSS ÷ text, with a key", medianOf(keyedPeaks)/mib(payload), "×",
		fmt.Sprintf("%s; %s to %s over the rounds", withKey, number(slices.Min(keyedPeaks)/mib(payload)), number(slices.Max(keyedPeaks)/mib(payload))))
	return b.resourceFar(ctx, l, api, id)
}

// loadAverage is the machine's load average over the last minute, or 0
// where /proc/loadavg cannot be read.
func loadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return 0
	}
	load, _ := strconv.ParseFloat(fields[0], 64)
	return load
}

// apiLatency is what each answer of the API takes over a network, which
// loopback does not: the hosted service is tens of milliseconds away.
const apiLatency = 20 * time.Millisecond

// resourceFar is the resource's read where the API is apiLatency away (a
// proxy in this process that waits that long before passing each request
// on), against plain requests for the same pages through it, one at a time:
// the time the pages read at once save. On loopback an answer takes about
// as long as the fake's CPU needs to write it, which the two CPUs share
// with the server reading the pages: the wait that reading at once hides
// is the network's.
func (b *bench) resourceFar(ctx context.Context, l launch, api, id string) error {
	target, err := url.Parse(api)
	if err != nil {
		return err
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	far := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(apiLatency):
		case <-r.Context().Done():
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer far.Close()
	l.env = append(slices.Clip(l.env), "HOOKSVC_API_URL="+far.URL)
	var delivered, plain []time.Duration
	for range b.sizes.rounds {
		took, err := readResourceRaw(ctx, l, "hooksvc://token/"+id+"/requests", b.sizes.captures, 1)
		if err != nil {
			return err
		}
		delivered = append(delivered, took[0])
		fetched, err := fetchPages(ctx, far.URL, id, b.sizes.captures, 1)
		if err != nil {
			return err
		}
		plain = append(plain, fetched)
	}
	away := fmt.Sprintf("API %d ms away", apiLatency.Milliseconds())
	note := fmt.Sprintf("each answer delayed %d ms by a proxy, the median of %d", apiLatency.Milliseconds(), b.sizes.rounds)
	b.add("hookmcp", "resource read, "+away+": answer delivered", ms(median(delivered)), "ms", note)
	b.add("hookmcp", "the same pages by plain HTTP, "+away, ms(median(plain)), "ms", note+", one page at a time")
	return nil
}

// resourceRead is one read of the requests resource in a fresh server.
type resourceRead struct {
	took, serverCPU, clientCPU time.Duration
	peak, before               float64 // MiB
	text                       int     // bytes
}

// readResource reads uri in a fresh server through the Go SDK's client and
// checks that it holds want requests.
func readResource(ctx context.Context, l launch, uri string, want int) (resourceRead, error) {
	s, _, err := connect(ctx, l)
	if err != nil {
		return resourceRead{}, err
	}
	defer s.Close()
	var r resourceRead
	if r.before, err = rssMiB(s.pid()); err != nil {
		return r, err
	}
	cpuBefore, err := cpuTime(s.pid())
	if err != nil {
		return r, err
	}
	clientBefore := selfCPU()
	start := time.Now()
	res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return r, err
	}
	r.took, r.clientCPU = time.Since(start), selfCPU()-clientBefore
	cpuAfter, err := cpuTime(s.pid())
	if err != nil {
		return r, err
	}
	r.serverCPU = cpuAfter - cpuBefore
	if r.peak, err = peakRSSMiB(s.pid()); err != nil {
		return r, err
	}
	var items []json.RawMessage
	if len(res.Contents) == 0 || json.Unmarshal([]byte(res.Contents[0].Text), &items) != nil || len(items) != want {
		return r, fmt.Errorf("the resource gave %d requests, want %d", len(items), want)
	}
	r.text = len(res.Contents[0].Text)
	return r, nil
}

// readResourceRaw reads uri in a fresh server through a bare stdio session:
// how long from writing the request to reading the last byte of its answer,
// which is decoded only after, to check that it holds want requests. It
// reads reads times in the same session, and gives each read's time.
func readResourceRaw(ctx context.Context, l launch, uri string, want, reads int) ([]time.Duration, error) {
	cmd := l.command()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	}()
	answers := bufio.NewReaderSize(stdout, 1<<20)
	// answer reads lines up to the answer to id.
	answer := func(id string) ([]byte, error) {
		for {
			line, err := answers.ReadBytes('\n')
			if err != nil {
				return nil, fmt.Errorf("reading the answer to request %s: %w", id, err)
			}
			if bytes.Contains(line[:min(len(line), 100)], []byte(`"id":`+id+`,`)) {
				return line, nil
			}
		}
	}
	if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcpforge-bench","version":"v1"}}}`+"\n"); err != nil {
		return nil, err
	}
	if _, err := answer("1"); err != nil {
		return nil, err
	}
	if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		return nil, err
	}
	var times []time.Duration
	for read := range reads {
		id := strconv.Itoa(read + 2)
		start := time.Now()
		if _, err := fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":%s,"method":"resources/read","params":{"uri":%q}}`+"\n", id, uri); err != nil {
			return nil, err
		}
		line, err := answer(id)
		took := time.Since(start)
		if err != nil {
			return nil, err
		}
		var msg struct {
			Result struct {
				Contents []struct {
					Text string `json:"text"`
				} `json:"contents"`
			} `json:"result"`
		}
		var items []json.RawMessage
		if json.Unmarshal(line, &msg) != nil || len(msg.Result.Contents) == 0 || json.Unmarshal([]byte(msg.Result.Contents[0].Text), &items) != nil || len(items) != want {
			return nil, fmt.Errorf("the bare read gave %d requests, want %d: %.200s", len(items), want, line)
		}
		times = append(times, took)
	}
	return times, nil
}

// fetchPages fetches the pages holding n requests of a token, width at a
// time, as a plain client does.
func fetchPages(ctx context.Context, api, id string, n, width int) (time.Duration, error) {
	pages := make(chan int)
	errs := make(chan error, width)
	var wg sync.WaitGroup
	start := time.Now()
	for range width {
		wg.Go(func() {
			for page := range pages {
				if _, err := fetch(ctx, http.MethodGet, fmt.Sprintf("%s/token/%s/requests?sorting=oldest&per_page=100&page=%d", api, id, page), ""); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	var err error
send:
	for page := 1; (page-1)*100 < n; page++ {
		select {
		case pages <- page:
		case err = <-errs:
			break send
		}
	}
	close(pages)
	wg.Wait()
	took := time.Since(start)
	close(errs)
	if err == nil {
		err = <-errs
	}
	return took, err
}

// selfCPU is the CPU time (user + system) this process has used.
func selfCPU() time.Duration {
	var usage syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &usage) != nil {
		return 0
	}
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
}

// medianOf is the median of values (the lower of the two middle ones).
func medianOf(values []float64) float64 {
	if len(values) == 0 {
		return 0
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	return sorted[(len(sorted)-1)/2]
}

// capture sends n webhook requests to a capture URL, eight at a time.
func capture(ctx context.Context, url string, n int) error {
	work := make(chan struct{})
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range work {
				if _, err := fetch(ctx, http.MethodPost, url, webhookBody); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	sent := 0
	for ; sent < n; sent++ {
		select {
		case work <- struct{}{}:
		case err := <-errs:
			close(work)
			wg.Wait()
			return err
		}
	}
	close(work)
	wg.Wait()
	close(errs)
	return <-errs
}
