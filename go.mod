module github.com/nlutest/nlutest

go 1.26.8

require (
	github.com/apparentlymart/go-textseg/v15 v15.0.0
	github.com/fatih/color v1.19.0
	github.com/hashicorp/hcl/v2 v2.25.0
	github.com/mattn/go-runewidth v0.0.31
	github.com/ohler55/ojg v1.28.5
	github.com/olekukonko/tablewriter v1.1.5
	github.com/zclconf/go-cty v1.20.0
	go.etcd.io/bbolt v1.4.3
	golang.org/x/term v0.48.0
	golang.org/x/text v0.31.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/agext/levenshtein v1.2.1 // indirect
	github.com/apparentlymart/go-textseg/v17 v17.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/clipperhouse/displaywidth v0.10.0 // indirect
	github.com/clipperhouse/uax29/v2 v2.6.0 // indirect
	github.com/google/go-cmp v0.6.0 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	github.com/mitchellh/go-wordwrap v1.0.1 // indirect
	github.com/olekukonko/cat v0.0.0-20250911104152-50322a0618f6 // indirect
	github.com/olekukonko/errors v1.2.0 // indirect
	github.com/olekukonko/ll v0.1.6 // indirect
	golang.org/x/mod v0.29.0 // indirect
	golang.org/x/sync v0.18.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/tools v0.38.0 // indirect
)
