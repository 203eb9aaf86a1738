// Package loopback runs the repository's programs on this machine for the
// demo and the bench: it builds them from the workspace and starts the
// loopback stand-ins (the sample GraphQL API, the capture-API fake, a server
// over HTTP), reading the URL each logs.
package loopback

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// Build compiles both servers, the sample GraphQL API and the capture-API
// fake into bin, from the workspace this program runs in, and returns the
// workspace's root. command is how to run the caller, for the error a run
// outside a clone gets.
func Build(ctx context.Context, bin, command string) (string, error) {
	gowork, err := exec.CommandContext(ctx, "go", "env", "GOWORK").Output()
	if err != nil || strings.TrimSpace(string(gowork)) == "" {
		return "", errors.New("run it from a clone of the repository: " + command)
	}
	root := filepath.Dir(strings.TrimSpace(string(gowork)))
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin+string(filepath.Separator),
		"./graphqlmcp", "./graphqlmcp/cmd/samplegraphql", "./hookmcp", "./hookmcp/cmd/fakehooksvc")
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build: %w", err)
	}
	return root, nil
}

// Procs are the programs started from Bin, stopped together.
type Procs struct {
	Bin     string
	started []*exec.Cmd
}

// Start runs a program of Bin that logs the URL it serves (url=http://...)
// and returns that URL and the process.
func (p *Procs) Start(name string, args ...string) (string, *os.Process, error) {
	cmd := exec.Command(filepath.Join(p.Bin, name), args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	p.started = append(p.started, cmd)
	logged := regexp.MustCompile(`url=(http://\S+)`)
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		if m := logged.FindStringSubmatch(lines.Text()); m != nil {
			go io.Copy(io.Discard, stderr)
			return m[1], cmd.Process, nil
		}
	}
	return "", nil, fmt.Errorf("%s stopped before it listened", name)
}

// StopAll interrupts every program started and waits for it.
func (p *Procs) StopAll() {
	for _, cmd := range p.started {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}
}
