// Package tritonpb is the generated Go code of the part of Triton's KServe
// v2 gRPC API that llmbench speaks (grpc_service.proto beside it): the
// messages and the GRPCInferenceService client and server. Regenerate it
// with `go generate ./transport/tritonpb/` (protoc 3.21 from Debian's
// protobuf-compiler, protoc-gen-go v1.36.12, protoc-gen-go-grpc v1.6.2 in
// PATH) after changing the .proto; the generated files are committed, so a
// build needs none of those tools.
package tritonpb

//go:generate protoc --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative grpc_service.proto
