package metrics

import (
	"cmp"
	"slices"
)

// errorKey is what makes two failures "the same error" in the error list.
type errorKey struct {
	class   ErrorClass
	status  int
	message string
}

// errorList turns failure counts by (class, status, message) into the
// error list, most frequent first; ties are ordered by class, status and
// message so a report lists the same run the same way every time.
func errorList(counts map[errorKey]int) []ErrorCount {
	if len(counts) == 0 {
		return nil
	}
	list := make([]ErrorCount, 0, len(counts))
	for k, n := range counts {
		list = append(list, ErrorCount{Class: k.class, Status: k.status, Message: k.message, Count: n})
	}
	slices.SortFunc(list, func(a, b ErrorCount) int {
		return cmp.Or(
			cmp.Compare(b.Count, a.Count),
			cmp.Compare(a.Class, b.Class),
			cmp.Compare(a.Status, b.Status),
			cmp.Compare(a.Message, b.Message),
		)
	})
	return list
}
