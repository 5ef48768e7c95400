// Package stats owns the corpus distribution statistics of the IAO corpus-factory write-up
// §4.1.6 (`nlutest stats`): how the materials are spread over tags and
// levels (素材库概况), how the generated cases are spread over templates,
// template levels, business scenes, splits and core / non-core scenes
// (模板生成句子统计, 业务场景维度句子统计), and how often each value of every
// schema dimension is exercised by the cases' expectations (IAO 本体、属性、
// 关系、行为 coverage).
//
// Compute is pure: it reads a loaded suite, streams its cases through
// spec.Suite.Generate without keeping them, and returns plain data with
// every list in a stable order. Rendering (console tables, Markdown) is the
// CLI's job.
package stats
