package app

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"
)

// helpWidth is the terminal width --help is laid out for.
const helpWidth = 80

// helpTemplate is what --help prints, as a urfave/cli template with nothing
// left to fill in: what the server is, how to run it, and each flag on its
// own lines (names, then what it does, then its default and its environment
// variable), wrapped to fit an 80-column terminal.
func helpTemplate(spec Spec, flags []cli.Flag, version string) string {
	flags = append(flags,
		&cli.BoolFlag{Name: "help", Aliases: []string{"h"}, Usage: "show this help"},
		&cli.BoolFlag{Name: "version", Aliases: []string{"v"}, Usage: "print the module version and the commit"})
	var b strings.Builder
	b.WriteString(wrap(spec.Name+" - "+spec.Usage, "", "  "))
	fmt.Fprintf(&b, "\nUsage: %s [options]\n", spec.Name)
	for _, paragraph := range strings.Split(spec.Description, "\n\n") {
		b.WriteString("\n" + wrap(paragraph, "", ""))
	}
	b.WriteString("\nOptions:\n")
	for _, flag := range flags {
		if hidden, ok := flag.(cli.VisibleFlag); ok && !hidden.IsVisible() {
			continue
		}
		writeFlag(&b, flag)
	}
	b.WriteString("\n" + wrap("Version: "+version, "", "  "))
	return strings.ReplaceAll(b.String(), "{{", `{{"{{"}}`)
}

func writeFlag(b *strings.Builder, flag cli.Flag) {
	var names []string
	for _, name := range flag.Names() {
		if len(name) == 1 {
			names = append([]string{"-" + name}, names...)
		} else {
			names = append(names, "--"+name)
		}
	}
	heading := "  " + strings.Join(names, ", ")
	doc, ok := flag.(cli.DocGenerationFlag)
	if !ok {
		b.WriteString(heading + "\n")
		return
	}
	if doc.TakesValue() {
		heading += " " + doc.TypeName()
	}
	b.WriteString(heading + "\n")
	b.WriteString(wrap(doc.GetUsage(), "      ", "      "))
	var notes []string
	if def := defaultText(doc); def != "" {
		notes = append(notes, "default "+def)
	}
	if env := doc.GetEnvVars(); len(env) > 0 {
		notes = append(notes, "env "+strings.Join(env, ", "))
	}
	if multi, ok := flag.(cli.DocGenerationMultiValueFlag); ok && multi.IsMultiValueFlag() {
		notes = append(notes, "repeatable")
	}
	if len(notes) > 0 {
		b.WriteString(wrap("("+strings.Join(notes, "; ")+")", "      ", "      "))
	}
}

// defaultText is a flag's default as --help shows it, or "" when it has none
// worth showing (false, zero, empty).
func defaultText(doc cli.DocGenerationFlag) string {
	if !doc.TakesValue() || !doc.IsDefaultVisible() {
		return ""
	}
	if text := doc.GetDefaultText(); text != "" {
		return text
	}
	switch value := doc.GetValue(); value {
	case "", `""`, "0", "[]":
		return ""
	default:
		return value
	}
}

// wrap reflows text into lines of at most helpWidth columns (a word longer
// than that stands alone): the first line starts with first, the others with
// rest. Each line ends in a newline.
func wrap(text, first, rest string) string {
	var b strings.Builder
	line := first
	empty := true
	for _, word := range strings.Fields(text) {
		if !empty && len([]rune(line))+1+len([]rune(word)) > helpWidth {
			b.WriteString(line + "\n")
			line, empty = rest, true
		}
		if !empty {
			line += " "
		}
		line += word
		empty = false
	}
	b.WriteString(line + "\n")
	return b.String()
}
