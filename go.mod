module github.com/llmbench/llmbench

go 1.26.8

require (
	github.com/alecthomas/kong v1.17.0
	github.com/buger/jsonparser v1.6.1
	github.com/montanaflynn/stats v0.14.0
	github.com/rs/zerolog v1.35.1
	github.com/valyala/fasthttp v1.78.0
	go.starlark.net v0.0.0-20260908191801-89a6a09411d5
)

require (
	github.com/dlclark/regexp2 v1.11.4
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	github.com/molecule-man/go-brrr v1.3.1 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0
)
