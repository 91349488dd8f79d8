// Package records writes and reads records.parquet (SPEC §7): one row per
// request of a sweep point, with the run's configuration in the file's
// key-value metadata. Files are written in row groups as the run goes, so
// memory stays bounded however many requests a point sends, and a file read
// back yields metrics.Record values whose metrics.Summarize is exactly that
// of the records written. A file a killed run left without its footer is
// recovered (Recover); a point's telemetry samples go to telemetry.parquet
// beside it (WriteTelemetry). The schema is documented in docs/records.md.
package records

// SchemaVersion is the version of the file's schema (its columns and
// metadata keys), stored in every file under the key
// "llmbench.schema_version". Records files must stay readable forever, so
// a version only ever adds to the one before it:
//
//   - It goes up by one whenever columns or metadata keys are added, or a
//     key's value takes a new layout that says its own version (an older
//     llmbench then refuses the file by its schema version, not halfway
//     through), and for no other change: a column or key is never
//     removed, renamed or retyped, and its values never change meaning. Every column of every
//     past version stays, with the same name and type.
//   - A file of an older version lacks the columns added since, and
//     ReadEach reads them as NULL or zero. So a new column must be one for
//     which that is the truth about an older file: optional (NULL: not
//     recorded) unless zero holds for every request an older file has.
//   - Each bump adds the step for the version it leaves to upgrades
//     (versions.go), the one place that brings an older file's metadata up
//     to date; readers accept every version from 1 to SchemaVersion.
//
// testdata/columns/vN.txt lists the columns of version N and
// testdata/fixtures holds a file of each version, written by
// testdata/gen; TestSchemaOnlyAddsColumns and TestReadFixtures hold
// every past version to the rule (docs/records.md, "Schema versions").
const SchemaVersion = 7

// row is one records.parquet row. Column names carry their unit (_ns,
// _us, _tokens); timestamps are int64 nanoseconds since the Unix epoch
// with the TIMESTAMP(NANOS, UTC) logical type. Per-request metrics are the
// values metrics.Derive computes, null where it has none.
type row struct {
	Scenario   string `parquet:"scenario,dict"`
	Experiment string `parquet:"experiment,dict"`
	Point      string `parquet:"point,dict"`
	Repeat     int32  `parquet:"repeat"`
	Shard      int32  `parquet:"shard"`

	RequestID        int64  `parquet:"request_id,delta"`
	DatasetEntry     int64  `parquet:"dataset_entry,delta"`
	DatasetComponent string `parquet:"dataset_component,dict"`

	// ScheduledNs is a plain int64 rather than a TIMESTAMP because 0 (closed
	// loop) is a sentinel, not a date.
	ScheduledNs    int64  `parquet:"scheduled_send_ns,delta"`
	SendTime       int64  `parquet:"send_time,timestamp(nanosecond),delta"`
	FirstChunkTime *int64 `parquet:"first_chunk_time,optional,timestamp(nanosecond)"`
	LastChunkTime  *int64 `parquet:"last_chunk_time,optional,timestamp(nanosecond)"`
	DoneTime       *int64 `parquet:"done_time,optional,timestamp(nanosecond)"`

	TTFTNs           *int64   `parquet:"ttft_ns,optional"`
	TTSTNs           *int64   `parquet:"ttst_ns,optional"`
	ITLNs            *int64   `parquet:"itl_ns,optional"`
	RequestLatencyNs *int64   `parquet:"request_latency_ns,optional"`
	TTFONs           *int64   `parquet:"ttfo_ns,optional"`
	TPSPerUser       *float64 `parquet:"output_token_throughput_per_user_tokens_per_s,optional"`

	ISLTokens int32 `parquet:"isl_tokens"`
	OSLTokens int32 `parquet:"osl_tokens"`

	UsagePromptTokens     *int32 `parquet:"usage_prompt_tokens,optional"`
	UsageCompletionTokens *int32 `parquet:"usage_completion_tokens,optional"`

	ErrorClass   *string `parquet:"error_class,optional,dict"`
	ErrorStatus  *int32  `parquet:"error_status,optional"`
	ErrorMessage *string `parquet:"error_message,optional,dict"`

	ReasoningChunks int32 `parquet:"reasoning_chunks"`
	// Retries (since version 3) counts the attempts sent again on a fresh
	// connection because they never reached the server (metrics.Record
	// Retries); NULL in older files, which did not record it.
	Retries *int32 `parquet:"retries,optional"`
	// CachedTokens (since version 5) is how many of the prompt's tokens the
	// server said it served from its prefix cache; NULL when it did not
	// say (no such usage field) and in older files, which did not record
	// it.
	CachedTokens *int32 `parquet:"cached_tokens,optional"`
	// ChunkOffsetsNs is the exact arrival time of every content chunk, as ns
	// since SendTime; it is what ReadRecords rebuilds Record.Chunks from.
	ChunkOffsetsNs []int64 `parquet:"chunk_offsets_ns,list" parquet-element:",delta"`
	// ChunkGapsUs is the gap between consecutive content chunks in µs,
	// rounded half away from zero: the convenient per-chunk ITL column.
	ChunkGapsUs []int32 `parquet:"chunk_gaps_us,list" parquet-element:",delta"`

	// SessionID, Turn and LastTurn (since version 4) place a conversation
	// turn: its session, its 1-based turn index, and whether it was the
	// session's final planned turn. NULL for single-turn requests and in
	// older files, which had none.
	SessionID *string `parquet:"session_id,optional,dict"`
	Turn      *int32  `parquet:"turn,optional"`
	LastTurn  *bool   `parquet:"last_turn,optional"`
	// Warmup (since version 5) marks a request an auto point's warm-up
	// rule (MSER-5) judged part of the start-up transient: measured, kept
	// here, left out of every metric. False in older files, which is true
	// of them: they had no such rule.
	Warmup bool `parquet:"warmup"`
	// Replica (since version 5) is the index, in the endpoint's URL list,
	// of the replica that served the request (0 with one URL); NULL in
	// older files, whose endpoints had one.
	Replica *int32 `parquet:"replica,optional"`
	// ImageCount, ImageBytes, AudioCount, AudioBytes and AudioSeconds
	// (since version 7) are what a multimodal request carried beside its
	// text (metrics.Media): pictures and clips, their encoded bytes, the
	// clips' length. Zero in older files, which is true of them: no
	// llmbench before version 7 sent media.
	ImageCount   int32   `parquet:"image_count"`
	ImageBytes   int64   `parquet:"image_bytes"`
	AudioCount   int32   `parquet:"audio_count"`
	AudioBytes   int64   `parquet:"audio_bytes"`
	AudioSeconds float64 `parquet:"audio_seconds"`
}
