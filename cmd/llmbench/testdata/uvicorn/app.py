# A tiny OpenAI-style SSE chat server under uvicorn: the keep-alive
# behaviour of vLLM/SGLang's HTTP stack, without a model.
import asyncio, json
from starlette.applications import Starlette
from starlette.responses import StreamingResponse
from starlette.routing import Route

async def chat(request):
    body = await request.json()
    n = int(body.get("max_tokens") or 8)
    async def events():
        for i in range(n):
            await asyncio.sleep(0.002)
            chunk = {"choices": [{"index": 0, "delta": {"content": f" t{i}"}, "finish_reason": None}]}
            yield f"data: {json.dumps(chunk)}\n\n"
        done = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": n, "total_tokens": 10 + n}}
        yield f"data: {json.dumps(done)}\n\n"
        yield "data: [DONE]\n\n"
    return StreamingResponse(events(), media_type="text/event-stream")

app = Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])
