package assert

import "github.com/nlutest/nlutest/assert/metrics"

// caseMeteor is one case's METEOR (metrics.text.meteor): the reply's
// tokens against each reference's, tokenised alike with the case's
// tokenizer (the suite's text_metrics tokenize, else zh for a Chinese
// case, so Chinese is matched character by character, else 13a), the best
// reference's score.
func caseMeteor(tok metrics.Tokenizer, reply []string, refs []string) float64 {
	rt := make([][]string, len(refs))
	for i, r := range refs {
		rt[i] = metrics.Tokenize(tok, r)
	}
	return metrics.Meteor(reply, rt)
}
