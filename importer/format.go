package importer

import "fmt"

// Format is one kind of test set `nlutest import NAME` reads. The
// built-in ones are DefaultFormats; a program adds its own to its
// extensions.Set's Importers. A new format is one file with a Format
// (reading its input, building the suite with NewSuite) and one line in a
// list: `import NAME`, its usage lines and its messages follow from it.
type Format interface {
	// Name is the word after `nlutest import` ("botium"): lower case.
	Name() string
	// Args is what follows the name on the command line, for the usage
	// lines: "DIR", "FILE...".
	Args() string
	// Help says in a few words what the format is, for the usage lines:
	// "a suite from Botium convos and utterances".
	Help() string
	// Read reads args (paths, made absolute) into a suite. A mistake in
	// the arguments (their number, an option the format takes none of)
	// is an *ArgError: `nlutest import` prints it with the usage, exit 2.
	// Input the format refuses whole is an *InputError; a path it did not
	// read is listed in skipped with the reason, also when err is not nil.
	Read(args []string, o Options) (res *Result, skipped []Skipped, err error)
}

// Options are what the command line gives every format.
type Options struct {
	// Features are the parts of the suite language the suite may use.
	Features Features
	// Domain is --domain: the bot's own model (a Rasa domain, a file or a
	// directory), "" when not given. Only a format with a TakesDomain
	// method returning true is given one; `nlutest import` refuses
	// --domain for the others.
	Domain string
}

// ArgError is a mistake in the arguments `nlutest import NAME` was given.
type ArgError struct{ Msg string }

func (e *ArgError) Error() string { return e.Msg }

// argErrorf makes an *ArgError.
func argErrorf(format string, args ...any) error {
	return &ArgError{Msg: fmt.Sprintf(format, args...)}
}

// DefaultFormats returns the formats nlutest imports, in the order usage
// lines and messages list them. A new built-in format is a file here and
// a line in this list.
func DefaultFormats() []Format {
	return []Format{botiumFormat{}, rasaFormat{}}
}

// botiumFormat is `nlutest import botium DIR` (ReadBotium).
type botiumFormat struct{}

func (botiumFormat) Name() string { return "botium" }
func (botiumFormat) Args() string { return "DIR" }
func (botiumFormat) Help() string { return "a suite from Botium convos and utterances" }

func (botiumFormat) Read(args []string, o Options) (*Result, []Skipped, error) {
	if len(args) != 1 {
		return nil, nil, argErrorf("import botium takes one directory of convos, got %d paths", len(args))
	}
	return ReadBotium(args[0], o.Features)
}

// rasaFormat is `nlutest import rasa-e2e FILE...` (ReadRasa).
type rasaFormat struct{}

func (rasaFormat) Name() string      { return "rasa-e2e" }
func (rasaFormat) Args() string      { return "FILE..." }
func (rasaFormat) Help() string      { return "a suite from Rasa end-to-end tests or test stories" }
func (rasaFormat) TakesDomain() bool { return true }

func (rasaFormat) Read(args []string, o Options) (*Result, []Skipped, error) {
	return ReadRasa(args, o.Domain, o.Features)
}

// TakesDomain reports whether f reads a bot model given with --domain.
func TakesDomain(f Format) bool {
	d, ok := f.(interface{ TakesDomain() bool })
	return ok && d.TakesDomain()
}
