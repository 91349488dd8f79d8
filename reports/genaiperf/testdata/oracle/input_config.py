"""Writes ../reference/input_config_multi_model.json: the input_config block
GenAI-Perf itself builds for the profile flags below (parser.parse_args and
CreateConfig.create, then ConfigCommand.to_json_dict as
export_data/json_exporter.py does), as json.dumps(indent=2) writes it.
Needs `pip install genai-perf` and the dependencies its parser imports;
run from this folder: python3 input_config.py
"""
import json
import sys

from genai_perf import parser
from genai_perf.config.input.create_config import CreateConfig

FLAGS = ["profile", "-m", "org/a", "other/b", "--model-selection-strategy", "random",
         "--endpoint-type", "chat", "--streaming", "--concurrency", "4", "--request-count", "20",
         "--tokenizer-revision", "v2", "--tokenizer-trust-remote-code"]

sys.argv = ["genai-perf"] + FLAGS
args, extra = parser.parse_args()
config = CreateConfig.create(args, extra)
with open("../reference/input_config_multi_model.json", "w") as f:
    f.write(json.dumps({"input_config": config.to_json_dict()}, indent=2))
