package metrics

// The names of a point's parameters, as scenarios write them in sweep()
// and gates write them after "@". They live here, at the bottom of the
// import graph, because gates (here), plans (runtime), the Starlark layer
// and every report all name points by them.
const (
	ParamConcurrency  = "concurrency"
	ParamRate         = "rate"
	ParamInputTokens  = "input_tokens"
	ParamOutputTokens = "output_tokens"
	// ParamReplaySpeed is not swept; it names a replay's only point.
	ParamReplaySpeed = "replay_speed"
	// ParamUsers is the number of paced users of users(N, qps=...).
	ParamUsers = "users"
)

// LoadParams are the parameters that set how hard a point drives the
// server, in the order a point's load is looked for.
var LoadParams = []string{ParamConcurrency, ParamRate, ParamReplaySpeed, ParamUsers}

// TokenParams are the swept token lengths, in label order.
var TokenParams = []string{ParamInputTokens, ParamOutputTokens}
