package html

import "html/template"

// pageTemplate is the whole page. html/template escapes every value, so
// server error messages in the error table cannot inject markup.
var pageTemplate = template.Must(template.New("report").Parse(pageHTML))

// pageCSS is inlined: a <link> or web font would be a network fetch.
const pageCSS = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1200px;padding:1.5rem;color:#1b1f24;background:#fff}
h1{margin:0 0 .3rem}h2{border-bottom:2px solid #d0d7de;padding-bottom:.2rem;margin-top:2rem}h3{margin-top:1.4rem}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.9rem}
th,td{border:1px solid #d0d7de;padding:.25rem .6rem;text-align:right;vertical-align:top}
th{background:#f6f8fa}td.l,th.l{text-align:left}
.pass{color:#1a7f37;font-weight:600}.fail{color:#cf222e;font-weight:600}.warn{color:#9a6700;font-weight:600}
.muted{color:#57606a}tr.partial td{color:#57606a;font-style:italic}ul.notes{padding-left:1.2rem;margin:.3rem 0 1rem}
.banner{background:#fff8c5;border:1px solid #d4a72c;border-left:6px solid #bf8700;padding:.7rem 1rem;margin:1rem 0;font-size:1.05rem}
.plots{display:flex;flex-direction:column;gap:1.2rem}figure{margin:0}
.plots.grid{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:1rem;align-items:start}h4{margin:1rem 0 .3rem}
ul.warnings li{color:#9a6700}figure.tall img{width:auto;max-height:94vh}
figure img{display:block;width:100%;max-width:100%;height:auto;border:1px solid #d0d7de}figcaption{font-size:.8rem;color:#57606a}
`

const pageHTML = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>` + pageCSS + `</style>
</head><body>
<h1>{{.Title}}</h1>
{{if .Partial}}<div class="banner" role="alert"><strong>Partial results: the run was interrupted.</strong> Only the points that ran are shown; a point marked (partial) was cut short and is left out of the knee and saturation analyses.</div>{{end}}
{{with .Scenario}}<p class="muted">Scenario: <code>{{.}}</code></p>{{end}}
{{with .Config}}<h2>Configuration</h2>
<table>{{range .}}<tr><th class="l">{{.Key}}</th><td class="l">{{.Value}}</td></tr>{{end}}</table>{{end}}
<h2 id="gates">Gates</h2>
{{with .Check}}<p class="{{.Class}}">{{.Text}}</p>{{end}}
{{if .Verdicts}}<p><span class="pass">{{.Passed}} passed</span> · <span class="{{if .Failed}}fail{{else}}muted{{end}}">{{.Failed}} failed</span></p>
<table><tr><th></th><th class="l">experiment</th><th class="l">point</th><th class="l">gate</th><th class="l">measured vs limit</th></tr>
{{range .Verdicts}}<tr><td class="{{.Class}}">{{.Mark}}</td><td class="l">{{.Experiment}}</td><td class="l">{{.Point}}</td><td class="l"><code>{{.Gate}}</code></td><td class="l">{{.Message}}</td></tr>
{{end}}</table>{{else}}<p class="muted">No gates were set.</p>{{end}}
{{with .Comparison}}<h2 id="comparison">Comparison with the baseline</h2>
<p>Baseline <code>{{.Baseline}}</code>, this run <code>{{.Candidate}}</code>; each bound one-sided at {{.Level}} confidence. <span class="{{if .Failing}}fail{{else}}pass{{end}}">{{.Regressions}}</span> · <span class="{{if .Doubtful}}warn{{else}}muted{{end}}">{{.Inconclusive}}</span></p>
{{with .Rows}}{{template "comparison" .}}{{end}}
{{with .Informational}}<h3>{{$.Comparison.InformationalLabel}}</h3>
{{template "comparison" .}}{{end}}
{{with .Notes}}<ul class="notes">{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}{{end}}
{{range .Experiments}}{{template "experiment" .}}{{end}}
{{if .Plots}}<h2 id="plots">Plots</h2>
{{range .Plots}}<h3>{{.Title}}</h3><div class="plots">
{{range .Images}}<figure><img src="{{.URI}}" alt="{{.Name}}"><figcaption>{{.Name}}</figcaption></figure>
{{end}}</div>{{end}}{{end}}
</body></html>
{{define "comparison"}}<table><tr><th class="l">point</th><th class="l">metric</th><th>baseline</th><th>this run</th><th>change</th><th>one-sided bounds</th><th class="l">method</th><th>tolerance</th><th>detects</th><th class="l">verdict</th></tr>
{{range .}}<tr><td class="l">{{.Point}}</td><td class="l">{{.Metric}}</td><td>{{.Baseline}}</td><td>{{.Candidate}}</td><td>{{.Change}}</td><td>{{.Bounds}}</td><td class="l">{{.Method}}</td><td>{{.Tolerance}}</td><td>{{.Detects}}</td><td class="l {{.Class}}">{{.Verdict}}</td></tr>
{{end}}</table>{{end}}{{define "experiment"}}<h2>Experiment {{.Name}}</h2>
{{with .Config}}<table>{{range .}}<tr><th class="l">{{.Key}}</th><td class="l">{{.Value}}</td></tr>{{end}}</table>{{end}}
<h3>Points</h3>{{template "metrics" .Points}}
{{with .NotConverged}}<div class="banner" role="alert"><strong>Steady state not reached:</strong> these points hit their cap before the confidence intervals were as narrow as asked; their percentiles are less certain.<ul class="notes">{{range .}}<li>{{.}}</li>{{end}}</ul></div>{{end}}
{{with .Steady}}<p><strong>Steady state</strong> (requests="auto"):</p><ul class="notes">{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{with .ClientLimited}}<div class="banner" role="alert"><strong>Limited by the client, not the server:</strong> these points measure llmbench's own limits (--strict makes this exit 3).<ul class="notes">{{range .}}<li>{{.}}</li>{{end}}</ul></div>{{end}}
{{with .CacheShift}}<div class="banner" role="alert"><strong>Prefix cache shifted between points:</strong> {{.}}</div>{{end}}
{{with .PrefixCache}}<h3>Prefix cache</h3><p class="muted">Share of the server-reported prompt tokens the server said it served from its prefix cache.</p><ul class="notes">{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{with .Sweep}}<h3>Sweep</h3>
<table class="sweep"><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr{{if .Partial}} class="partial"{{end}}>{{range .Cells}}<td{{with .Class}} class="{{.}}"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</table>
{{with .Notes}}<ul class="notes">{{range .}}<li>{{with .Label}}<strong>{{.}}:</strong> {{end}}{{.Text}}</li>{{end}}</ul>{{end}}{{end}}
{{with .Telemetry}}{{template "telemetry" .}}{{end}}
{{range .Components}}<h3>Dataset components · {{.Point}}</h3>{{template "metrics" .Rows}}{{end}}{{range .Stages}}<h3>Stages · {{.Point}}</h3>{{template "metrics" .Rows}}{{end}}
{{with .Shards}}<h3>Shards</h3><ul class="notes">{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{range .Sessions}}<h3>Conversations · {{.Point}}</h3><p>{{.Summary}}</p>
<table><tr><th>turn</th><th>requests</th><th>TTFT p50 (ms)</th><th>TTFT p99 (ms)</th><th>latency p50 (ms)</th><th>ISL avg (tokens)</th></tr>
{{range .Turns}}<tr><td>{{.Turn}}</td><td>{{.Requests}}</td><td>{{.TTFTP50}}</td><td>{{.TTFTP99}}</td><td>{{.LatencyP50}}</td><td>{{.ISL}}</td></tr>
{{end}}</table>{{end}}
{{range .Repeats}}<h3>Repeats · {{.Point}} ({{.Runs}} runs)</h3>
<table><tr><th class="l">metric</th><th class="l">unit</th><th>n</th><th>mean</th><th>stddev</th><th>95% CI</th><th>spread</th><th class="l"></th></tr>
{{range .Rows}}<tr><td class="l">{{.Metric}}</td><td class="l">{{.Unit}}</td><td>{{.N}}</td><td>{{.Mean}}</td><td>{{.Stddev}}</td><td>{{.CI}}</td><td>{{.Spread}}</td><td class="l {{.FlagClass}}">{{.Flag}}</td></tr>
{{end}}</table>{{end}}
<h3>Errors</h3>{{if .Errors}}<table><tr><th class="l">point</th><th class="l">class</th><th>status</th><th class="l">message</th><th>count</th></tr>
{{range .Errors}}<tr><td class="l">{{.Point}}</td><td class="l">{{.Class}}</td><td>{{.Status}}</td><td class="l">{{.Message}}</td><td>{{.Count}}</td></tr>
{{end}}</table>{{else}}<p class="muted">No request failed.</p>{{end}}
{{end}}
{{define "telemetry"}}<h3>Telemetry</h3>
{{with .Sources}}<p class="muted">Scraped from {{range $i, $u := .}}{{if $i}}, {{end}}<code>{{$u}}</code>{{end}}.</p>{{end}}
{{with .Energy}}<h4>GPUs: power, energy and cost</h4>
<table><tr><th class="l">point</th><th class="l">GPUs</th><th>total power avg (W)</th><th>total power p99 (W)</th><th>energy (kJ)</th><th>J / output token</th><th>output tokens / J</th>{{if $.Cost}}<th>{{$.Currency}} / 1M output tokens</th>{{end}}<th>GPU utilisation avg (%)</th></tr>
{{range .}}<tr><td class="l">{{.Point}}</td><td class="l">{{.GPUs}}</td><td>{{.PowerAvg}}</td><td>{{.PowerP99}}</td><td>{{.Energy}}</td><td>{{.PerToken}}</td><td>{{.TokensPerJ}}</td>{{if $.Cost}}<td>{{.Cost}}</td>{{end}}<td>{{.Utilization}}</td></tr>
{{end}}</table>{{end}}
{{with .Server}}<h4>Inference server</h4>
<table><tr><th class="l">point</th><th class="l">server</th><th>running avg / max</th><th>waiting avg / max</th><th>KV cache peak (%)</th><th>prefix-cache hits (%)</th><th>preemptions</th><th>server TTFT mean (ms)</th><th>server TTFT p99 (ms, its histogram bucket)</th><th class="l">compared</th><th>client mean (ms)</th><th>server mean (ms)</th><th>client − server (ms)</th></tr>
{{range .}}<tr><td class="l">{{.Point}}</td><td class="l">{{.Engines}}</td><td>{{.Running}}</td><td>{{.Waiting}}</td><td>{{.KVPeak}}</td><td>{{.PrefixHits}}</td><td>{{.Preemptions}}</td><td>{{.ServerTTFT}}</td><td>{{.ServerTTFTP99}}</td><td class="l">{{.Compared}}</td><td>{{.ClientMean}}</td><td>{{.ServerMean}}</td><td>{{.Difference}}</td></tr>
{{end}}</table>
<p class="muted">The server's means are exact; its quantiles are known only to the histogram bucket they fall in. Client − server is everything outside the server's clock: the server's own front end (the server starts timing after it has received and parsed the request, and stops before the response is sent), the network and the client. It compares TTFT when the responses were streamed, request latency otherwise.</p>{{end}}
{{with .Unknown}}<ul class="notes muted">{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{with .Warnings}}<p class="warn">Telemetry warnings</p><ul class="notes warnings">{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{with .Notes}}<ul class="notes muted">{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{with .SweepPlots}}<h4>Along the sweep</h4><div class="plots grid">
{{range .}}<figure{{if .Tall}} class="tall"{{end}}><img src="{{.URI}}" alt="{{.Name}}"><figcaption>{{.Name}}</figcaption></figure>
{{end}}</div>{{end}}
{{with .PointPlots}}<h4>Over time, per point</h4><div class="plots grid">
{{range .}}{{$point := .Title}}{{range .Images}}<figure><img src="{{.URI}}" alt="{{$point}}: {{.Name}}"><figcaption>{{$point}}</figcaption></figure>
{{end}}{{end}}</div>{{end}}
{{end}}
{{define "metrics"}}<table><tr><th class="l"></th><th>requests</th><th>TTFT p50 (ms)</th><th>TTFT p99 (ms)</th><th>ITL p50 (ms)</th><th>ITL p99 (ms)</th><th>latency p99 (ms)</th><th>output tok/s</th><th>req/s</th><th>goodput (req/s)</th><th>errors</th><th>gates</th></tr>
{{range .}}<tr><td class="l">{{.Name}}</td><td>{{.Requests}}</td><td>{{.TTFTP50}}</td><td>{{.TTFTP99}}</td><td>{{.ITLP50}}</td><td>{{.ITLP99}}</td><td>{{.LatencyP99}}</td><td>{{.OutputTok}}</td><td>{{.ReqPerSec}}</td><td>{{.Goodput}}</td><td>{{.Errors}}</td><td class="{{.GatesClass}}">{{.Gates}}</td></tr>
{{end}}</table>{{end}}`
