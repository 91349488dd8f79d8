package sim

import (
	"net/http"
	"strings"
)

// inference serves one generation API: decode and validate the body, pick
// the request's fault, answer 429/500 at once (as a gateway or an
// overloaded server would, without taking a batch slot), else run the job.
func (s *Server) inference(a api) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.stats.requests.Add(1)
		seq := s.seq.Add(1)
		req, err := decodeRequest(r, a, s.cfg.DefaultOutputTokens)
		if a == apiTGI || a == apiKServe {
			// The route, not the body, says whether to stream; TGI serves
			// one model and KServe names it in the path.
			req.stream = strings.HasSuffix(r.URL.Path, "_stream")
			req.model = s.cfg.Model
			if a == apiKServe {
				req.model, _ = kserveModel(r.URL.EscapedPath())
			}
		}
		forced, isForced, ferr := parseFaultHeader(r.Header.Get(FaultHeader))
		if err == nil {
			err = ferr
		}
		if err == nil && s.cfg.StrictModel && req.model != s.cfg.Model {
			s.stats.notFound.Add(1)
			switch a {
			case apiMessages:
				writeAnthropicError(w, http.StatusNotFound, "not_found_error", "model: "+req.model)
				return
			case apiKServe: // Triton's words and status
				writeErrorFor(a, w, http.StatusBadRequest, "", "Request for unknown model: '"+req.model+"' is not found")
				return
			}
			s.writeModelNotFound(w, req.model)
			return
		}
		if err == nil {
			err = s.fitContext(&req)
		}
		if err != nil {
			s.stats.badRequest.Add(1)
			writeErrorFor(a, w, http.StatusBadRequest, "invalid_request_error", err.Error())
			return
		}
		j := s.newJob(r.Context(), w, seq, req, forced, isForced)
		switch j.fault {
		case fault429:
			s.stats.status429.Add(1)
			w.Header().Set("Retry-After", "1")
			writeErrorFor(a, w, http.StatusTooManyRequests, "rate_limit_error", "sim: injected rate limit")
		case fault500:
			s.stats.status500.Add(1)
			writeErrorFor(a, w, http.StatusInternalServerError, "internal_server_error", "sim: injected server error")
		default:
			s.count(s.runJob(j))
		}
	}
}

// runJob picks the sink: a stream when asked for, a whole body otherwise.
func (s *Server) runJob(j *job) outcome {
	if !j.req.stream {
		return j.run(&jsonSink{j: j})
	}
	var out sink
	var err error
	switch j.req.api {
	case apiResponses:
		out, err = newResponsesSink(j)
	case apiMessages:
		out, err = newMessagesSink(j)
	case apiTGI:
		out, err = newTGISink(j)
	case apiKServe:
		out, err = newKServeSink(j)
	default:
		out, err = newSSESink(j)
	}
	if err != nil {
		return outcomeCanceled
	}
	return j.run(out)
}

// count books a job's end; resets were booked when injected.
func (s *Server) count(o outcome) {
	switch o {
	case outcomeDone:
		s.stats.completed.Add(1)
	case outcomeCanceled:
		s.stats.canceled.Add(1)
	}
}
