package records

import (
	"strconv"

	"github.com/llmbench/llmbench/runtime/plan"
)

// Meta is the run configuration stored in a file's key-value metadata, one
// key per field under the "llmbench." prefix (see docs/records.md). The
// scenario, experiment, point, repeat and shard are also written as columns
// of every row, so files of several points, repeats or shards can be
// concatenated and still be told apart. Meta never holds request headers:
// they carry credentials.
type Meta struct {
	Scenario   string
	Experiment string
	Point      string // sweep point label, e.g. "concurrency16"
	Repeat     int
	Shard      int

	Model string
	// EndpointURL is the server URL; Writer strips user info and
	// credential-like query parameters before storing it.
	EndpointURL string
	API         string // e.g. "chat", "completions"
	Stream      bool
	// Load describes the load pattern, e.g. "concurrency=16" or
	// "rate=10/s poisson".
	Load string
	// TokenCounting is the token counting mode behind isl_tokens and
	// osl_tokens, e.g. "tokenizer" or "usage".
	TokenCounting string
	// Version is the llmbench version that wrote the file.
	Version string
	// SchemaVersion is set by Writer to the package's SchemaVersion (a
	// value given to NewWriter is ignored) and read back as the file's own
	// version, which may be older than the package's.
	SchemaVersion string
	// Config is the writer's full description of the run, as JSON (for
	// llmbench, the GenAI-Perf run description), so every report can be
	// re-rendered from the records file alone. It must hold no secrets.
	Config string
	// PointRecord is the runner's saved plan of this run of the point (a
	// runtime.PointRecord as JSON): the experiment as planned, the point's
	// key and place in run order, its token counting and whether it was
	// cut short, so a stored run reads back into what ran. "" in files of
	// schema version 1. It must hold no secrets.
	PointRecord string
	// Recovered is read back as true from a file whose run crashed and
	// whose footer Recover rebuilt: it holds the row groups written before
	// the crash only, and the metadata of the last of them (so usually no
	// TokenCounting or Config). NewWriter ignores it.
	Recovered bool
}

// Metadata key names.
const (
	keyPrefix        = "llmbench."
	keyScenario      = keyPrefix + "scenario"
	keyExperiment    = keyPrefix + "experiment"
	keyPoint         = keyPrefix + "point"
	keyRepeat        = keyPrefix + "repeat"
	keyShard         = keyPrefix + "shard"
	keyModel         = keyPrefix + "model"
	keyEndpoint      = keyPrefix + "endpoint_url"
	keyAPI           = keyPrefix + "api"
	keyStream        = keyPrefix + "stream"
	keyLoad          = keyPrefix + "load"
	keyTokenCounting = keyPrefix + "token_counting"
	keyVersion       = keyPrefix + "version"
	keySchemaVersion = keyPrefix + "schema_version"
	keyConfig        = keyPrefix + "config"
	keyPointRecord   = keyPrefix + "point_record" // since schema version 2
	keyRecovered     = keyPrefix + "recovered"    // written by Recover only
)

// pairs lists the metadata a Writer stores as key-value pairs, in a fixed
// order.
func (m Meta) pairs() [][2]string {
	return [][2]string{
		{keySchemaVersion, strconv.Itoa(SchemaVersion)},
		{keyVersion, m.Version},
		{keyScenario, m.Scenario},
		{keyExperiment, m.Experiment},
		{keyPoint, m.Point},
		{keyRepeat, strconv.Itoa(m.Repeat)},
		{keyShard, strconv.Itoa(m.Shard)},
		{keyModel, m.Model},
		{keyEndpoint, plan.RedactURL(m.EndpointURL)},
		{keyAPI, m.API},
		{keyStream, strconv.FormatBool(m.Stream)},
		{keyLoad, m.Load},
		{keyTokenCounting, m.TokenCounting},
		{keyConfig, m.Config},
		{keyPointRecord, m.PointRecord},
	}
}

// metaFrom reads Meta back through lookup; missing keys leave zero values.
func metaFrom(lookup func(string) (string, bool)) Meta {
	get := func(k string) string { v, _ := lookup(k); return v }
	atoi := func(k string) int { n, _ := strconv.Atoi(get(k)); return n }
	stream, _ := strconv.ParseBool(get(keyStream))
	return Meta{
		Scenario:      get(keyScenario),
		Experiment:    get(keyExperiment),
		Point:         get(keyPoint),
		Repeat:        atoi(keyRepeat),
		Shard:         atoi(keyShard),
		Model:         get(keyModel),
		EndpointURL:   get(keyEndpoint),
		API:           get(keyAPI),
		Stream:        stream,
		Load:          get(keyLoad),
		TokenCounting: get(keyTokenCounting),
		Version:       get(keyVersion),
		SchemaVersion: get(keySchemaVersion),
		Config:        get(keyConfig),
		PointRecord:   get(keyPointRecord),
		Recovered:     get(keyRecovered) == "true",
	}
}
