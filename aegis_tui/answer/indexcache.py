"""The fact index on disk: one JSON-lines journal per (document, model, Aegis version and labelling rules), under
the user cache.

Every labelled value is one appended line, written with a single ``write`` under an exclusive lock and
flushed, so a process killed mid-index loses at most the line it was writing (a torn last line is skipped on
load) and two processes indexing the same document interleave whole lines. Nothing read back is trusted:
the FactIndex re-verifies every cached fact against the document. A directory that cannot be written (read
only, full disk) turns the cache off with one warning; indexing goes on in memory.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from .. import __version__

ENV_VAR = "AEGIS_CACHE_DIR"
FORMAT = 1
# the labelling rules' revision, raised when they change what a value is labelled: a journal labelled by earlier
# rules is not read (the index is rebuilt), as one of another Aegis version is not (2: a subject of one character
# is refused, a subject inside its enumeration item is widened to the item's head; 3: a predicate that is only
# another figure is refused; 4: a predicate loses the section number its span began with, as a subject did;
# 5: an item's value with no words before it is labelled by the noun after it, "- Specialist visit: $50 copay";
# 6: a value a noun phrase introduces and "for …" assigns is labelled by both, and a numbered series "Classes 2 and
# 3" is one name in an enumeration; 7: a share's base after "of" is whom it is for, "for successive Renewal Terms of";
# 8: after the model's last label failed, the section's title and the phrase introducing the value; 9: an enumeration
# item that only names whom it is for, by the lead-in's topic: "起付线标准按…确定：二级定点医疗机构600元"; 10: a tier
# by its bracket, "500万元至1000万元的部分，不超过25%", its bounds no facts of their own, "1.8万元…" no longer item 1;
# a time limit by what must be done in it, "之日起6个月内申请零星报销"; an untitled article by its chapter's title;
# words after a value in the next clause do not stop a plain clause labelling it; 11: a time limit's subject is
# never the clause after it, nor its act to whom it is done, "向参保地经办机构备案"; an English clause gapped after
# "and" by the words before its value, "…, and a full-mouth X-ray once every 60 months"; a model subject is not
# widened into a clause stating its predicate, "履约保证金为合同金额"; a Chinese value followed by the act of paying
# what it pays, "按每日150元给付住院津贴"; a value bounding a case of another value is no fact, "aged 65 to 79", "怀孕
# 不满4个月流产的"; an item's capped values each "for" someone, "- Single Trip policies: up to 90 days for persons aged
# 65 to 79"; "31 days per trip" is a value; a Markdown file's emphasis markers are out of its text; a value in a
# cell of several by its own words there, "(single item limit $400; …)", or no fact, "$30 for each full 12 hours";
# "is reduced to $10,000 for …"; a Chinese condition holding only its bound names its case, "怀孕不满4个月流产的，
# 享受产假15天", and an item opening with one is not a bare name under its lead-in; an English copula's subject names
# its value under the title, "The single transaction limit is $2,500"; a model subject holding another figure is
# asked again, "5% of each progress payment"; a copula's subject of up to nine words, "The daily meal allowance for
# Silver Ceramics staff is …"); 12: an English time limit's who and act, "Landlord will return the deposit, …,
# within 21 days" → Landlord | deadline to return the deposit; an item's value for a case after it, "- Tenant
# notice: 30 days if the tenancy has lasted less than 1 year; …"); 13: a Chinese series of named values after 为 or
# 即, "一类病种起付线为职工医保300元、居民医保500元", and a name with its measure, "职工医保支付比例为70%"; a column
# header keeps a parenthesis that tells it from a twin, "职工医保（在职）" beside "职工医保（退休）"); 14: a Chinese
# time limit's act without how it is done, "通过监测系统向分行反洗钱岗提交初报"; an English one's later act opens with
# its verb); 15: an English predicate keyword is a word ("Battery covered if capacity falls below" names no cap),
# and a Chinese label whose subject is nearly a run of its predicate is asked again; 16: a subject opening with
# while, since or because is a clause, not a name; 17: an item's values each for whom "for" names, "- Application
# fee: $60 for undergraduate applicants and $75 for graduate applicants"; areas, weights, volumes, energy have units;
# 18: an English clause's run-in title scopes it, "7.1 Low-income assistance. …"; a value an article introduces is the
# noun after it, "receive a 30% discount on …" → Low-income assistance | discount; 19: a column of ranges beside
# values of another kind labels the rows, "Tier 3 16 to 30 CCF | Rate per CCF"; a header's parenthesis holding a
# figure stays in the column's name, "Full-semester (15-week) courses"; 20: sibling list items share their measure,
# "- 中心城区（含…）城市低保标准为每人每月1,080元"; 21: a column of names holding a figure of another kind labels the
# rows, "Fire lane or within 15 feet of a fire hydrant", and a predicate's own figure is no unit of the value,
# "Fine after 30 days"; 22: a column of cases, some ranges and some names, labels the rows, "Ages 8–12", "Age 65 and
# over", "Teachers and childcare providers in the district"; 23: a Chinese list item that is its value's name under a
# lead-in, "- 一次性丧葬补助金8,000元；", and a value paid during a time to whom, "重点群体人员在培训期间，按每人每天40元
# 给予生活费补贴"; 24: a Chinese share of ten thousand or a thousand is a value, "按日加收欠缴金额万分之三的违约金"; 25:
# an item's name under a lead-in may say how its value is counted and bounded, "标准为：硕士研究生每人每月不超过2000元";
# 26: a name's classifier 类 and possessive 的 may be left out where it is mentioned, "工程类项目" in "工程项目"; 27: a
# value opening its sentence binds the subject of the clause it leads into, and an English time limit so placed is
# labelled by who acts there, "Within 21 days after Resident surrenders …, Landlord will return the deposit"; a
# Chinese condition's value in the last clause after it, "申请人逾期申请的，…，但补发期限最长不超过12个月"; a figure in a
# condition clause is no item of an enumeration, and the verb bounding a value names no one, "…不足15年的，…延长缴费期限
# 最长不超过5年"; 28: a header's unit per two things, "伙食补助（元/人·天）", and a caption's "（单位：元）" are units, and
# a column whose every value is of one kind says what its header measures, "| Discount | Amount |" over 15%, 10%, 3%;
# 29: after the model's last label failed, an English sentence's opening condition is whom the phrase introducing
# its value is for, "If a scheduled payment is declined …, a Returned Payment Fee of $20.00 will be charged"; 30: a
# bare number after a code of capitals, "endorsement HM 04 20", or zero-padded, is an identifier, no value; 31: an
# item naming itself before a colon of its own under a lead-in that is the measure's name alone, "普通门诊统筹年度最高支付
# 限额：" over "2. 退休人员：4500元；", and a name opening with 在 that is a status, 在职职工, is no condition; 32: a
# condition's bounds read "第13个月起" and "after 30 days" as bounds, and "within 21 days" as the value's own limit; 33:
# a table's caption is read across a unit line under it, "表2 车位服务费上限" over "单位：元/个·月"; 34: a caption's
# compound number is no part of its title, "Table 3-1. Monthly Water Base Charge"; 35: after the model's last label
# failed, an English sentence opening with a measure and whom it is for labels its value, "The fee for a second
# residential permit … is 150% of …" → a second residential permit … | fee; 36: a Chinese table whose columns are
# classes of a series, "| 伤残等级 | 一类地区 | 二类地区 | 三类地区 |", labels its cells by the class and the measure its
# article's title names, "三类地区一次性工伤医疗补助金", and a part's number is two characters, "第二部分 …"; 37: after the
# model's last label failed, an English share labels its value by the base it is of under its section's title, "55% of
# the annual price" under "4.7 Six-month permits" → Six-month permits | share of the annual price; 38: a column naming a
# rule's edition, "Prior Rate (Revision 13, from July 1, 2024)", asks no rate of its figures; 39: two English tables keyed
# alike are labelled by their captions' names, "Grades 4 and 5 — Maximum Company matching contribution from 1 April 2025";
# a numbered caption may run to 120 characters; a title loses the dash after its number, "Part 4 — Company
# contributions" → Company contributions; a column giving each row's member of a series by its number, "| Grade |"
# over "4", holds no values; 41: a column of codes, one to a row, labels the rows, and so do the names right of it, "| 甲类 |
# J02 | 尿毒症透析治疗（…） | 70,000元 |" → 甲类 J02 尿毒症透析治疗（…）, where every 甲类 row had been labelled 甲类 alone;
# 42: a label rejected only because the document states its value as a change is kept as that change, "住院救助比例" →
# 住院救助比例提高 for "各提高5个百分点", and an English change verb up to 16 characters before a value makes it one, "is
# increased by £2.50")
LABELS = 42


def default_cache_dir() -> Path:
    """$AEGIS_CACHE_DIR, else the user cache directory for 'aegis' (index/ below it)."""
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("aegis")) / "index"


class IndexCache:
    """The journal of one document's fact index for one model; warnings collects why it was turned off."""

    def __init__(self, directory: str | Path, doc_sha256: str, model_id: str, version: str = __version__) -> None:
        self.header = {"format": FORMAT, "document": doc_sha256, "model": model_id, "aegis": version, "labels": LABELS}
        digest = hashlib.sha256(json.dumps(self.header, sort_keys=True).encode()).hexdigest()[:16]
        self.path = Path(directory) / f"{doc_sha256[:24]}-{digest}.jsonl"
        self.enabled = True
        self.warnings: list[str] = []
        self.skipped_lines = 0

    def entries(self) -> list[dict]:
        """The journal's entries after a matching header; [] for a missing, foreign or unreadable file."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as exc:
            self._off(f"cannot read the index cache {self.path}: {exc.strerror or exc}")
            return []
        lines = raw.split(b"\n")
        try:
            header = json.loads(lines[0])
        except ValueError:
            header = None
        if header != self.header:
            self._discard("its header does not match this document, model, Aegis version and labelling rules")
            return []
        out = []
        for line in lines[1:]:
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except ValueError:
                self.skipped_lines += 1  # a torn line from a killed writer, or an edit: rebuilt
                continue
            if isinstance(entry, dict):
                out.append(entry)
            else:
                self.skipped_lines += 1
        return out

    def append(self, entry: dict) -> None:
        """Append one entry (creating the journal with its header); on an OS error turn the cache off."""
        if not self.enabled:
            return
        line = (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as exc:
            self._off(f"cannot write the index cache in {self.path.parent}: {exc.strerror or exc}")
            return
        try:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                if os.fstat(fd).st_size == 0:
                    line = (json.dumps(self.header, sort_keys=True) + "\n").encode("utf-8") + line
                else:
                    line = self._after_torn_tail(fd) + line
                _write_all(fd, line)
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        except OSError as exc:
            self._off(f"cannot write the index cache {self.path}: {exc.strerror or exc}")
        finally:
            os.close(fd)

    @staticmethod
    def _after_torn_tail(fd: int) -> bytes:
        """A newline to end a torn last line (a killed writer's), so the next entry starts on its own line."""
        size = os.fstat(fd).st_size
        return b"" if os.pread(fd, 1, size - 1) == b"\n" else b"\n"

    def _discard(self, why: str) -> None:
        """A journal from something else (or damaged at its head) is moved aside, not trusted."""
        try:
            os.replace(self.path, self.path.with_suffix(".stale"))
        except OSError as exc:
            self._off(f"cannot replace the stale index cache {self.path} ({why}): {exc.strerror or exc}")

    def _off(self, why: str) -> None:
        if self.enabled:
            self.enabled = False
            self.warnings.append(why + "; indexing in memory only")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def model_fingerprint(path: str | Path) -> str:
    """A fast identity for a model file: sha256 over its size and its first and last MiB (GGUF header,
    metadata and the tail of the tensor data); hashing gigabytes on every open would cost seconds."""
    p = Path(path)
    h = hashlib.sha256()
    size = p.stat().st_size
    h.update(str(size).encode())
    with p.open("rb") as f:
        h.update(f.read(1 << 20))
        if size > 2 << 20:
            f.seek(size - (1 << 20))
            h.update(f.read(1 << 20))
    return h.hexdigest()
