// Package transport owns one logical call to an HTTP target: it sends a
// request, retries it according to a Policy, paces every attempt through a
// rate Limiter, and classifies every way the call can go wrong into a
// schema.CallError (Timeout, ConnectionError, HTTPError, InvalidJSON,
// ResponseTooLarge, RequestError). It never prints and never panics on bad
// input; whatever happens is in the returned Response.
//
// Guarantees the runner relies on:
//
//   - The per-attempt timeout covers the whole exchange, including reading the
//     body, so a server that drips one byte a second still times out.
//   - At most MaxResponseBytes of a body are ever held in memory; the rest is
//     never read (the connection is closed instead).
//   - Cancelling the parent context (Ctrl-C) ends the call promptly, is never
//     followed by a retry, and is reported with Response.Interrupted set and an
//     error of type schema.ErrRequest with message "interrupted", so the
//     runner can leave the case unrecorded and let --resume run it again.
//   - A Limiter never lets two attempt starts come closer than the GCRA
//     schedule allows and never admits more than rate×W starts in any sliding
//     window W (W = ceil(rate)/rate, one second for integer rates), while
//     catching up after late timer wake-ups, so the achieved rate stays within
//     a fraction of a percent of the target over a minute.
package transport
