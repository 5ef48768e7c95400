// Package botmodel owns the bot's own model as coverage counts it: the
// items a conversational assistant declares — intents, entities, slots,
// responses, custom actions, forms, flows and flow steps — read from the
// files its team already has (a Rasa domain file or directory, NLU
// training data, Rasa Pro/CALM flows) or from a plain list for other
// engines (docs/language.md#coverage). It reads bytes handed to it (the
// caller opens files under the suite's file rules), never the network,
// and reports every problem as a located hcl.Diagnostic: file, line and
// column in the YAML file, a short summary and what to do.
package botmodel
