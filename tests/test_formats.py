"""Formats: .md/.docx/.pdf of one document give one canonical text, one structure and a source map; bad files fail
in one line."""

import zipfile
from pathlib import Path

import pytest
from docbuilder import write_docx, write_pdf

from aegis_tui.errors import DocumentError
from aegis_tui.text.document import Document
from aegis_tui.text.formats.pdf_reader import MAX_PDF_PAGES
from aegis_tui.text.roles import Role, number_roles

DOCS = Path(__file__).with_name("docs")
NAMES = ["expense_en.md", "medical_zh.md", "notice_zh.md"]


@pytest.fixture(scope="module", params=NAMES)
def forms(request, tmp_path_factory) -> dict[str, Document]:
    """The Markdown document and the DOCX and PDF built from it, loaded."""
    md = DOCS / request.param
    out = tmp_path_factory.mktemp("forms")
    source = md.read_text(encoding="utf-8")
    return {
        "markdown": Document.load(md),
        "docx": Document.load(write_docx(source, out / "doc.docx")),
        "pdf": Document.load(write_pdf(source, out / "doc.pdf")),
    }


def squash(text: str) -> str:
    return " ".join(text.split())


def squash_path(path: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(squash(p) for p in path)  # a PDF text layer gives the ideographic space 　 as a plain space


def shape(d: Document) -> list:
    s = d.structure
    return [(b.kind, squash_path(b.heading_path), squash(b.lead_in), squash(d.text[b.start:b.end])) for b in s.blocks]


def tables(d: Document) -> list:
    return [(squash(t.caption), squash_path(t.heading_path), t.header_rows, t.row_header_col,
             [[c.text for c in row] for row in t.rows]) for t in d.structure.tables]


@pytest.mark.parametrize("fmt", ["docx", "pdf"])
def test_same_canonical_text_structure_and_values(forms, fmt):
    md, other = forms["markdown"], forms[fmt]
    assert other.format == fmt and md.format == "markdown"
    assert squash(other.text) == squash(md.text)
    assert shape(other) == shape(md)
    assert tables(other) == tables(md)
    values = [(r.text, r.role, str(r.quantity), r.unit_from) for r in number_roles(md)]
    assert [(r.text, r.role, str(r.quantity), r.unit_from) for r in number_roles(other)] == values
    assert any(r[1] is Role.VALUE for r in values)


def test_docx_source_map_names_paragraphs_and_cells(forms):
    d = forms["docx"]
    table = d.structure.tables[-1]
    cell = table.rows[2][1]
    assert d.source.locate(cell.start).describe() == f"table {len(d.structure.tables)}, row 3, column 2"
    heading = d.structure.headings[0]
    assert d.source.locate(heading.start).describe() == "paragraph 1"


def test_pdf_source_map_names_page_line_and_cells(forms):
    d = forms["pdf"]
    loc = d.source.locate(d.structure.headings[1].start)
    assert (loc.format, loc.page) == ("pdf", 1) and loc.describe().startswith("page 1, line ")
    cell = d.structure.tables[0].rows[1][1]
    assert d.source.locate(cell.start).describe() == "page 1, table 1, row 2, column 2"
    pos = d.position(cell.start)  # the canonical text keeps its own line/column index
    assert d.text.split("\n")[pos.line - 1][pos.column - 1:].startswith(cell.text)


def test_pdf_table_on_a_later_page_names_that_page(tmp_path):
    filler = "\n\n".join(f"Paragraph {i} says nothing about amounts at all." for i in range(40))
    md = f"# Long handbook\n\n{filler}\n\nRates:\n\n| Item | Cap |\n| --- | --- |\n| Taxi | $45 |\n"
    d = Document.load(write_pdf(md, tmp_path / "long.pdf"))
    loc = d.source.locate(d.text.index("$45"))
    assert loc.page >= 2 and loc.describe() == f"page {loc.page}, table 1, row 2, column 2"


def test_docx_merged_cells_repeat_their_text(tmp_path):
    """A merged cell's text stands in every grid cell it covers, so each cell keeps its row and column labels."""
    import docx

    document = docx.Document()
    t = document.add_table(rows=4, cols=3)
    t.cell(0, 1).merge(t.cell(0, 2)).text = "补助标准（元/人）"
    for c, text in enumerate(["类别", "", ""]):
        if text:
            t.cell(0, c).text = text
    t.cell(1, 1).text, t.cell(1, 2).text = "省内", "省外"
    t.cell(2, 0).merge(t.cell(3, 0)).text = "一线职工"
    t.cell(2, 1).text, t.cell(2, 2).text = "1800", "2600"
    t.cell(3, 1).text, t.cell(3, 2).text = "1900", "2700"
    document.save(str(tmp_path / "merged.docx"))
    d = Document.load(tmp_path / "merged.docx")
    table = d.structure.tables[0]
    assert [[c.text for c in row] for row in table.rows] == [
        ["类别", "补助标准（元/人）", "补助标准（元/人）"], ["", "省内", "省外"], ["一线职工", "1800", "2600"],
        ["一线职工", "1900", "2700"]]
    assert table.row_header(3) == "一线职工"


def test_docx_header_rows_marked_in_word_become_header_rows(tmp_path):
    import docx
    from docx.oxml import OxmlElement

    document = docx.Document()
    t = document.add_table(rows=3, cols=2)
    for r, (a, b) in enumerate([("Meal", "Cap"), ("", "Domestic"), ("Lunch", "20")]):
        t.cell(r, 0).text, t.cell(r, 1).text = a, b
    for row in t.rows[:2]:
        row._tr.get_or_add_trPr().append(OxmlElement("w:tblHeader"))
    document.save(str(tmp_path / "h.docx"))
    table = Document.load(tmp_path / "h.docx").structure.tables[0]
    assert table.header_rows == 2 and table.column_header(1) == "Cap / Domestic"


def test_docx_automatic_numbering_becomes_list_items(tmp_path):
    import docx

    document = docx.Document()
    document.add_paragraph("Covered costs are:")
    document.add_paragraph("Airfare in economy", style="List Number")
    document.add_paragraph("Lodging up to $180 per night", style="List Number")
    document.add_paragraph("Receipts are kept", style="List Bullet")
    document.save(str(tmp_path / "n.docx"))
    d = Document.load(tmp_path / "n.docx")
    assert d.text == ("Covered costs are:\n\n1. Airfare in economy\n2. Lodging up to $180 per night\n"
                      "- Receipts are kept")
    item = d.structure.block_at(d.text.index("Lodging"))
    assert item.kind == "list_item" and item.lead_in == "Covered costs are:"


def test_pdf_drops_page_numbers_running_headers_and_boxes(tmp_path):
    from reportlab.pdfgen import canvas

    path = tmp_path / "running.pdf"
    c = canvas.Canvas(str(path), pagesize=(595, 842))
    for page in range(1, 4):
        c.setFont("Helvetica", 10)
        c.drawString(60, 815, "Harbor Line Logistics - internal")
        c.drawString(60, 700, f"Section {page} text: taxis are capped at ${40 + page}.")
        c.rect(55, 600, 400, 40)  # a framed note: one box, not a table
        c.drawString(60, 615, "Note: keep every receipt.")
        c.drawString(290, 20, f"{page}")
        c.showPage()
    c.save()
    d = Document.load(path)
    assert "Harbor Line" not in d.text and not d.structure.tables
    assert d.text.count("Note: keep every receipt.") == 3
    assert [r.text for r in number_roles(d) if r.role is Role.VALUE] == ["$41", "$42", "$43"]


def test_pdf_joins_hyphenated_words_and_wrapped_cjk_cells(tmp_path):
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.pdfgen import canvas

    if "STSong-Light" not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    path = tmp_path / "wrap.pdf"
    c = canvas.Canvas(str(path), pagesize=(595, 842))
    c.setFont("STSong-Light", 10)
    c.drawString(60, 760, "Approved expenses of every employee and contractor are reim-")
    c.drawString(60, 747, "bursed within 10 business days.")
    c.grid([60, 200, 340], [700, 670, 650])
    c.drawString(64, 688, "职工")
    c.drawString(64, 675, "类别")
    c.drawString(204, 680, "省内（元/人）")
    c.drawString(64, 656, "一线职工")
    c.drawString(204, 656, "1800")
    c.save()
    d = Document.load(path)
    assert "are reimbursed within 10 business days." in d.text
    table = d.structure.tables[0]
    assert table.column_header(0) == "职工类别" and table.rows[1][1].text == "1800"


def test_bold_title_lines_become_headings_in_docx_and_pdf(tmp_path):
    import docx
    from reportlab.pdfgen import canvas

    document = docx.Document()
    document.add_paragraph().add_run("Ground transport").bold = True
    document.add_paragraph("Taxis are capped at $45 per ride.")
    run = document.add_paragraph().add_run("Note: receipts are required.")
    run.bold = True  # bold, but a sentence: no title
    document.save(str(tmp_path / "b.docx"))
    c = canvas.Canvas(str(tmp_path / "b.pdf"), pagesize=(595, 842))
    c.setFont("Helvetica-Bold", 10)
    c.drawString(60, 760, "Ground transport")
    c.setFont("Helvetica", 10)
    c.drawString(60, 747, "Taxis are capped at $45 per ride.")
    c.save()
    for name in ("b.docx", "b.pdf"):
        d = Document.load(tmp_path / name)
        assert d.text.startswith("**Ground transport**\n\nTaxis are capped at $45 per ride.")
        assert d.structure.heading_path(d.text.index("Taxis")) == ("Ground transport",)
    assert Document.load(tmp_path / "b.docx").text.endswith("\n\nNote: receipts are required.")


def test_docx_skips_the_table_of_contents_and_knows_derived_heading_styles(tmp_path):
    import docx
    from docx.enum.style import WD_STYLE_TYPE

    document = docx.Document()
    toc = document.styles.add_style("TOC 1", WD_STYLE_TYPE.PARAGRAPH)
    custom = document.styles.add_style("Policy Section", WD_STYLE_TYPE.PARAGRAPH)
    custom.base_style = document.styles["Heading 2"]
    document.add_paragraph("4. Lodging\t12", style=toc)
    document.add_paragraph("4. Lodging", style=custom)
    document.add_paragraph("Rooms are capped at $210 per night.")
    document.save(str(tmp_path / "toc.docx"))
    d = Document.load(tmp_path / "toc.docx")
    assert d.text == "## 4. Lodging\n\nRooms are capped at $210 per night."


@pytest.mark.parametrize("fmt, text, start, expected", [
    ("chineseCounting", "（%1）", "1", ["（一）", "（二）"]),
    ("chineseCounting", "%1、", "1", ["一、", "二、"]),
    ("decimal", "%1)", "3", ["3) ", "4) "]),
    ("lowerLetter", "(%1)", "1", ["(a) ", "(b) "]),
])
def test_docx_numbering_formats(tmp_path, fmt, text, start, expected):
    import docx

    document = docx.Document()
    document.add_paragraph("报销比例为：")
    document.add_paragraph("一级医疗机构85%；", style="List Number")
    document.add_paragraph("二级医疗机构70%。", style="List Number")
    from lxml import etree

    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"

    def xpath(element, path):
        return etree.XPath(path, namespaces={"w": w})(element)

    numbering = document.part.numbering_part.element
    num_id = xpath(document.styles["List Number"].element, "./w:pPr/w:numPr/w:numId/@w:val")[0]
    abstract_id = xpath(numbering, f"./w:num[@w:numId='{num_id}']/w:abstractNumId/@w:val")[0]
    lvl = xpath(numbering, f"./w:abstractNum[@w:abstractNumId='{abstract_id}']/w:lvl[@w:ilvl='0']")[0]
    for tag, value in (("numFmt", fmt), ("lvlText", text), ("start", start)):
        xpath(lvl, f"./w:{tag}")[0].set(f"{{{w}}}val", value)
    document.save(str(tmp_path / "n.docx"))
    d = Document.load(tmp_path / "n.docx")
    assert d.text == f"报销比例为：\n\n{expected[0]}一级医疗机构85%；\n{expected[1]}二级医疗机构70%。"
    item = d.structure.block_at(d.text.index("二级"))
    assert item.kind == "list_item" and item.lead_in == "报销比例为："


def _zip_without_document(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
    return path


def _encrypted_pdf(path: Path) -> Path:
    from reportlab.lib import pdfencrypt
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), encrypt=pdfencrypt.StandardEncryption("secret", "owner"))
    c.drawString(72, 700, "Lodging is capped at $250.")
    c.save()
    return path


def _scanned_pdf(path: Path) -> Path:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path))
    c.rect(72, 72, 300, 400, fill=1)  # an image-like page: marks, no text layer
    c.save()
    return path


def _long_pdf(path: Path) -> Path:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path))
    for i in range(2000):
        c.drawString(72, 700, f"Page {i}: lodging is capped at $250.")
        c.showPage()
    c.save()
    return path


def _empty_docx(path: Path) -> Path:
    import docx

    docx.Document().save(str(path))
    return path


@pytest.mark.parametrize("name, make, message", [
    ("bad.docx", lambda p: (p.write_bytes(b"PK\x03\x04 this is no zip archive" * 10), p)[1], "not a readable .docx"),
    ("nodoc.docx", _zip_without_document, "not a readable .docx"),
    ("text.docx", lambda p: (p.write_text("plain words, not a package"), p)[1], "no ZIP container"),
    ("locked.docx", lambda p: (p.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600), p)[1], "encrypted"),
    ("empty.docx", _empty_docx, "empty"),
    ("zero.pdf", lambda p: (p.write_bytes(b""), p)[1], "empty"),
    ("bad.pdf", lambda p: (p.write_bytes(b"%PDF-1.4\nnot really a pdf\n"), p)[1], "not a readable PDF"),
    ("locked.pdf", _encrypted_pdf, "encrypted"),
    ("scan.pdf", _scanned_pdf, "no text layer; run OCR first"),
    ("long.pdf", _long_pdf, f"2000 pages is more than the {MAX_PDF_PAGES}-page limit"),
])
def test_bad_files_one_line_error(tmp_path, name, make, message):
    path = make(tmp_path / name)
    with pytest.raises(DocumentError) as exc:
        Document.load(path)
    assert message in str(exc.value) and "\n" not in str(exc.value)
