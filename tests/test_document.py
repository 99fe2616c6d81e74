"""Documents: encodings, bad input, the offset index, segmentation and verbatim search."""

import pytest

from aegis_tui.errors import DocumentError
from aegis_tui.text.document import Document, fold

ZH = "第一条 起付线：一级医疗机构300元，二级医疗机构600元；三级医疗机构1200元。\n第二条 年度最高支付限额为20万元！"
EN = "Lodging is capped at $250 in standard cities and $400 in high-cost cities. Mileage is $0.67 per mile, e.g. cars."


def write(tmp_path, name, data: bytes):
    p = tmp_path / name
    p.write_bytes(data)
    return p


def test_utf8_and_gb18030_load_the_same(tmp_path):
    a = Document.load(write(tmp_path, "a.txt", ZH.encode("utf-8")))
    b = Document.load(write(tmp_path, "b.txt", ZH.encode("gb18030")))
    assert a.text == b.text == ZH
    assert (a.encoding, b.encoding) == ("utf-8", "gb18030")


def test_crlf_normalised(tmp_path):
    d = Document.load(write(tmp_path, "c.md", ZH.replace("\n", "\r\n").encode()))
    assert "\r" not in d.text and d.line_count == 2


@pytest.mark.parametrize("data, message", [
    (b"", "empty"),
    (b"   \n\t \n", "empty"),
    (b"\x00\x01\x02binary\x00" * 50, "binary"),
    (bytes(range(256)) * 4, "binary"),
    (b"caf\xe9 na\xefve r\xe9sum\xe9 \x80\xff latin-1", "UTF-8"),
])
def test_bad_documents_one_line_error(tmp_path, data, message):
    with pytest.raises(DocumentError) as exc:
        Document.load(write(tmp_path, "bad.txt", data))
    assert message in str(exc.value) and "\n" not in str(exc.value)


def test_missing_and_directory(tmp_path):
    with pytest.raises(DocumentError, match="no such file"):
        Document.load(tmp_path / "nope.txt")
    with pytest.raises(DocumentError, match="directory"):
        Document.load(tmp_path)


def test_position_index():
    d = Document.from_text(ZH)
    off = ZH.index("第二条")
    pos = d.position(off)
    assert (pos.line, pos.column, pos.offset) == (2, 1, off)
    assert d.position(ZH.index("300")).column == ZH.index("300") + 1


@pytest.mark.parametrize("text, expected", [
    # Chinese: 。！？ and line breaks end sentences
    (ZH, ["第一条 起付线：一级医疗机构300元，二级医疗机构600元；三级医疗机构1200元。", "第二条 年度最高支付限额为20万元！"]),
    # English: decimals and "e.g." do not end a sentence
    (EN, ["Lodging is capped at $250 in standard cities and $400 in high-cost cities.",
          "Mileage is $0.67 per mile, e.g. cars."]),
])
def test_sentences(text, expected):
    d = Document.from_text(text)
    assert [s.text for s in d.sentences] == expected
    assert all(d.text[s.start:s.end] == s.text for s in d.sentences)


def test_clauses_and_fragments_are_verbatim_and_split_enumerations():
    d = Document.from_text(ZH + "\n" + EN)
    assert "三级医疗机构1200元。" in [c.text for c in d.clauses]
    frags = [f.text for f in d.fragments]
    assert "二级医疗机构600元；" in frags and "一级医疗机构300元，" in frags
    for span in d.clauses + d.fragments:
        assert d.text[span.start:span.end] == span.text and span.sentence >= 0


def test_thousands_separator_is_not_a_fragment_boundary():
    d = Document.from_text("The cap is 200,000 yuan, per year.")
    assert "The cap is 200,000 yuan," in [f.text for f in d.fragments]


def test_find_folds_nfkc_and_whitespace_only():
    d = Document.from_text("报销比例为８５％，  起付线   300元。")
    m = d.find("报销比例为85%")
    assert m is not None and d.text[m.start:m.end] == "报销比例为８５％"
    m2 = d.find("起付线 300元")
    assert m2 is not None and m2.text == "起付线   300元"
    assert d.find("起付线300元") is None  # deleting whitespace is not folding
    assert d.find("报销比例为86%") is None


def test_fold():
    assert fold("  Ａ\u3000b\n\nc ") == "A b c"


def test_language():
    assert Document.from_text(ZH).language == "zh"
    assert Document.from_text(EN).language == "en"


@pytest.mark.parametrize("name, fmt", [("a.txt", "text"), ("a.md", "markdown"), ("a.MD", "markdown"), ("a.text", "text")])
def test_text_files_are_kept_verbatim_with_their_format(tmp_path, name, fmt):
    body = "# Rates\n\n| Meal | Cap |\n| --- | --- |\n| Lunch | $20 |\n"
    d = Document.load(write(tmp_path, name, body.encode("utf-8")))
    assert (d.text, d.format) == (body, fmt)
    assert d.source.locate(body.index("$20")).describe() == "line 5, col 11"
    assert d.structure.tables[0].rows[1][1].text == "$20"


def test_docx_loads_through_the_same_entry_point(tmp_path):
    import docx

    document = docx.Document()
    document.add_heading("Rates", 1)
    document.add_paragraph("Lunch is capped at $20.")
    document.save(str(tmp_path / "r.DOCX"))
    d = Document.load(tmp_path / "r.DOCX")
    assert (d.format, d.text) == ("docx", "# Rates\n\nLunch is capped at $20.")
    assert d.position(d.text.index("$20")).line == 3 and d.find("capped at $20").text == "capped at $20"
    assert d.source.locate(d.text.index("$20")).describe() == "paragraph 2"


@pytest.mark.parametrize("name", ["gone.docx", "gone.pdf"])
def test_missing_converted_files_say_so(tmp_path, name):
    with pytest.raises(DocumentError, match="no such file"):
        Document.load(tmp_path / name)


def test_markdown_emphasis_and_link_targets_are_not_part_of_the_text(tmp_path):
    # "**第十九条** 私车…" put asterisks into quotes and labels ("*第十九条** 私车公用补助…"); the source map still
    # points at the file's own line and column
    path = tmp_path / "rule.md"
    path.write_text("# 报销\n\n**第十九条** 私车公用补助，应当自费用发生之日起30日内提交报销。\n\n"
                    "- **Chief Financial Officer (CFO)**: see [Schedule 2](#s2), *per person*.\n\n"
                    "| Benefit | Limit |\n| --- | --- |\n| **Baggage** | $1,500 |\n\n* a bullet, 2 * 3\n",
                    encoding="utf-8")
    doc = Document.load(path)
    assert "**" not in doc.text and "第十九条 私车公用补助" in doc.text
    assert "- Chief Financial Officer (CFO): see Schedule 2, per person." in doc.text
    assert "| Baggage | $1,500 |" in doc.text and "* a bullet, 2 * 3" in doc.text
    at = doc.text.index("30日")
    loc = doc.source.locate(at)
    line = path.read_text(encoding="utf-8").split("\n")[loc.line - 1]
    assert line[loc.column - 1:].startswith("30日")
    assert doc.structure.tables[0].row_headers() == ["Baggage"]
