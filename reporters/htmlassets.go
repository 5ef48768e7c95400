package reporters

// htmlCSS styles the HTML report; it is inlined so the page loads nothing.
const htmlCSS = `
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#fff;--soft:#f6f8fa;--pass:#1a7f37;--fail:#cf222e;--err:#bc4c00;--warn:#9a6700}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI","Noto Sans","Noto Sans CJK SC","PingFang SC","Microsoft YaHei",sans-serif}
main{max-width:1200px;margin:0 auto;padding:16px 24px 48px}
h1{font-size:20px;margin:0 0 6px}h2{font-size:17px;margin:28px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}h3{font-size:14px;margin:14px 0 6px}
code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--soft);padding:1px 4px;border-radius:4px}
.head{padding:14px 18px;border-radius:8px;border:1px solid var(--line);background:var(--soft)}
.verdict.pass{border-left:8px solid var(--pass)}.verdict.fail{border-left:8px solid var(--fail)}
.badge{display:inline-block;padding:1px 10px;border-radius:12px;color:#fff;font-size:15px}
.pass .badge{background:var(--pass)}.fail .badge{background:var(--fail)}
.ctx{color:var(--muted);margin:4px 0}.whyhead{font-weight:600;margin:8px 0 2px}
.tw{overflow-x:auto}
table{border-collapse:collapse;margin:6px 0 10px;font-variant-numeric:tabular-nums}
th,td{border:1px solid var(--line);padding:3px 8px;vertical-align:top}th{background:var(--soft);text-align:left}
td.r,th.r{text-align:right}td.c,th.c{text-align:center}
small{color:var(--muted)}
.m{font-weight:700}.m.pass{color:var(--pass)}.m.fail{color:var(--fail)}.m.err{color:var(--err)}.m.warn{color:var(--warn)}.m.skip{color:var(--muted)}
.notes{padding-left:20px}.more,.note,.intro{color:var(--muted)}
details{margin:4px 0}summary{cursor:pointer}
.charts{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}
figure{margin:8px 0;padding:8px;border:1px solid var(--line);border-radius:6px;max-width:100%;overflow-x:auto}
figcaption{font-weight:600;margin-bottom:4px}
svg{font:12px system-ui,sans-serif;fill:var(--fg)}svg .axis{fill:var(--muted);font-size:11px}svg .val{font-size:11px;fill:var(--muted)}svg .grid{stroke:var(--line)}svg .ci{stroke:var(--fg);stroke-width:1.5;fill:none}
svg .line{stroke:#0969da;stroke-width:2;fill:none}svg .run{fill:#0969da}svg .run.cur{fill:var(--fg)}svg .window{fill:var(--soft)}svg .level{stroke:var(--pass);stroke-dasharray:6 3}svg .limit{stroke:var(--fail);stroke-dasharray:2 3}svg .change{stroke:var(--warn);stroke-width:2;stroke-dasharray:4 3}svg .chg{fill:var(--warn)}
.filters{display:flex;flex-wrap:wrap;gap:8px;align-items:center;position:sticky;top:0;background:var(--bg);padding:8px 0;z-index:1}
.filters input{flex:1 1 260px;padding:5px 8px;border:1px solid var(--line);border-radius:6px}
.filters select{padding:4px;border:1px solid var(--line);border-radius:6px;max-width:260px}
#count{color:var(--muted)}
.case{border:1px solid var(--line);border-radius:6px;padding:4px 10px}
.case[open]{background:var(--soft)}.case .src{color:var(--muted)}.case .why{color:var(--fail)}
.case pre{white-space:pre-wrap;word-break:break-word;font:12px ui-monospace,Menlo,Consolas,monospace;background:var(--bg);border:1px solid var(--line);padding:8px;border-radius:6px}
.ev td.act{color:var(--fail)}.loc{margin:4px 0}
`

// htmlJS filters the failing cases and every transcript (conversations,
// scenarios: any details.transcript) by free text and by the facet selects
// (source, expectation, error type, outcome). It only reads and hides
// elements of the page.
const htmlJS = `
(function () {
  "use strict";
  var q = document.getElementById("q");
  var count = document.getElementById("count");
  var none = document.getElementById("none");
  if (!q || !count) { return; }
  var selects = Array.prototype.slice.call(document.querySelectorAll("select[data-f]"));
  var cases = Array.prototype.slice.call(document.querySelectorAll("#cases .case, details.transcript"));
  var texts = cases.map(function (c) { return c.textContent.toLowerCase(); });
  function apply() {
    var words = q.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    cases.forEach(function (c, i) {
      var ok = words.every(function (w) { return texts[i].indexOf(w) >= 0; });
      selects.forEach(function (s) {
        if (ok && s.value) {
          ok = (c.getAttribute("data-" + s.getAttribute("data-f")) || "").split("\n").indexOf(s.value) >= 0;
        }
      });
      c.hidden = !ok;
      if (ok) { shown++; }
    });
    count.textContent = shown + " of " + cases.length + " shown";
    if (none) { none.hidden = shown > 0; }
  }
  q.addEventListener("input", apply);
  selects.forEach(function (s) { s.addEventListener("change", apply); });
  apply();
}());
`
