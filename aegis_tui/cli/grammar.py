"""`aegis grammar`: regenerate or check grammars/extraction.gbnf; compile a grounded grammar for a document."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from ..errors import GrammarError, InputError
from ..grammar.compiler import (
    committed_extraction_grammar_path,
    committed_schema_path,
    extraction_grammar,
    extraction_schema_text,
)
from ..grammar.validate import check_grammar
from . import add_format_arg, add_model_arg, load_document, print_json


def register(sub) -> None:
    p = sub.add_parser("grammar", help="regenerate / check grammars/*.gbnf, or compile a grounded grammar")
    p.add_argument("--check", action="store_true", help="fail (exit 1) if the committed grammar is stale")
    p.add_argument("--doc", metavar="DOC",
                   help="print the document-grounded grammar for DOC instead ('sample:zh' or 'sample:en' too)")
    p.add_argument("--out", metavar="PATH", help="where to write (default: grammars/extraction.gbnf)")
    p.add_argument("--engines", action="store_true",
                   help="also compile the grammar in llama.cpp and llguidance (loads the model's vocabulary)")
    add_model_arg(p)
    add_format_arg(p)
    p.set_defaults(func=run)


def run(args) -> int:
    t0 = time.perf_counter()
    if args.doc:
        from ..grammar.grounded import grounded_grammar

        doc = load_document(args.doc)
        t0 = time.perf_counter()
        g = grounded_grammar(doc)
        text = g.text
        info = {"document": doc.path, "spans": len(g.spans), "values": sum(len(v) for v in g.values)}
    else:
        text = extraction_grammar()
        info = {"schema": "aegis_tui.schema.ExtractionPayload"}
    compile_ms = (time.perf_counter() - t0) * 1000
    check_grammar(text)
    info.update(bytes=len(text.encode()), rules=text.count("::="), compile_ms=round(compile_ms, 2))
    if args.engines:
        from ..grammar.engines import check_with_engines
        from ..models import resolve_model

        verdict = check_with_engines(text, str(resolve_model(args.model)))
        info.update(llama_cpp=verdict.llama_cpp_error or "ok", llguidance=verdict.llguidance_error or "ok")
        if not verdict.ok:
            raise GrammarError(f"grammar rejected: llama.cpp: {info['llama_cpp']}; llguidance: {info['llguidance']}")
    if args.check:
        if args.doc:
            raise InputError("--check compares the committed schema grammar; it does not take --doc")
        path = Path(args.out) if args.out else committed_extraction_grammar_path()
        pairs = [(path, text)] + ([] if args.out else [(committed_schema_path(), extraction_schema_text())])
        for golden, fresh in pairs:
            if not golden.exists():
                print(f"aegis: {golden} is missing; run `aegis grammar` to generate it", file=sys.stderr)
                return 1
            if golden.read_text(encoding="utf-8") != fresh:
                print(f"aegis: {golden} is stale: it differs from a fresh compile of the schema; "
                      "run `aegis grammar`", file=sys.stderr)
                return 1
        info["status"] = f"{path} is up to date"
    elif args.doc and not args.out:
        if args.format == "json":
            print_json({**info, "grammar": text})
        else:
            sys.stdout.write(text)
            print(" ".join(f"{k}={v}" for k, v in info.items()), file=sys.stderr)
        return 0
    else:
        path = Path(args.out) if args.out else committed_extraction_grammar_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if not args.out:
            committed_schema_path().write_text(extraction_schema_text(), encoding="utf-8")
        info["status"] = f"wrote {path}"
    if args.format == "json":
        print_json(info)
    else:
        print(" ".join(f"{k}={v}" for k, v in info.items()))
    return 0
