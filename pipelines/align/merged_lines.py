"""A translated paragraph that says several lines of its card's English text.

Printed cards, older ones above all, run lines of their text into one paragraph: a modal
spell's "Choose one —" and its modes as one sentence ("Elige uno: …; o …"), two abilities
joined by a line separator or by nothing ("…a tu reserva de maná.Cuando el Terrarión…").
The 1-1 pairing of a card's lines pairs such a paragraph with one of its lines; the others
would be reported missing, and the paragraph compared with a line that says less than it.

This is the many-to-one step of a sentence aligner (vecalign's): after the 1-1 pairs, an
English line left unpaired next to the lines a paragraph says joins them when the joined
English is at least as close to the paragraph as the lines without it (the embedding of the
joined text, ``AlignContext.joined_row``), its length fits the paragraph's no worse, and
the paragraph has every kind of symbol the line has. Measured on the tuning sets' printed
Spanish and Chinese card text (one-paragraph translations of several Oracle lines against
neighbouring lines of cards whose line counts agree): 95% of the joined paragraphs found,
2% (es) to 5% (zh) of neighbouring lines joined by mistake before the symbol test.
"""

from __future__ import annotations

import math
from itertools import pairwise, permutations

from ..model import Alignment, Ruling
from ..text.card_text import REMINDER_TEXT, is_card_text, is_reminder_line
from ..text.scripts import weighted_letters
from ..text.tokens import tokens
from ..vocabulary import Method
from .calibration import calibrated
from .context import MAX_JOINED_LINES, AlignContext, is_keyword_line, is_printed_keyword

MERGE_GAIN = -0.03
"""A line joins a paragraph's lines when the joined text's similarity with the paragraph
is at least the lines' without it plus this (a joined text embeds a little lower than the
sum of its parts: -0.03 keeps 95% of the true joins on the tuning sets)."""
LENGTH_RATIO = 1.15
"""Letters of a translation per letter of its English, reminder text aside (Spanish 1.22,
Chinese 1.10 with a Han character as ``HAN_WEIGHT`` letters, on the tuning sets)."""
LENGTH_SPREAD = 0.3
"""The spread of the log of that ratio over 1-1 pairs (0.30 Spanish, 0.35 Chinese)."""
LENGTH_SLACK = 0.5
"""A join may fit the paragraph's length this many spreads worse than the lines without it
(the ratio varies by line, and reminder text comes and goes)."""
PIECE_MIN_SIMILARITY = 0.30
"""A sentence of a paragraph says a line from this similarity up, when they are each other's
closest: "Vuela." and "Flying" score 0.34 (short texts score low for any embedder)."""
KEYWORD_MIN_SIMILARITY = 0.05
"""A keyword and its printed paragraph embed poorly (延势（此生物能阻挡…） and "Reach": 0.06;
死触（…） and "deathtouch": 0.12): for a line of keywords printed a keyword a paragraph,
their count and order carry the evidence, and each paragraph need only be closest to its
own keyword and not unrelated to it."""
OWN_MIN_SIMILARITY = 0.20
"""A paragraph paired with nothing says a stretch of unpaired lines when the joined lines
are at least this close to it (the card's own lines; ``card_rulings.OWN_MIN_SIMILARITY``)."""


def merged_lines(
    ctx: AlignContext,
    targets: list[Ruling],
    own_sources: list[Ruling],
    rows: list[Alignment],
    lang: str | None,
    group: str,
    embedder: str,
) -> list[Alignment]:
    """New rows: ``merged`` for each English line a paragraph says besides its own, the
    pair of a paragraph paired with nothing that says a stretch of unpaired lines (its
    first line as its pair, the others merged), and ``merged`` for a paragraph that says
    part of its neighbour's line (``_split_lines``; ``_keywords_printed_apart`` for a
    keyword of a listing line, even one another card's line had taken). Only card text of
    one English document."""
    if not targets or len({s.doc for s in own_sources}) != 1:
        return []
    if not all(is_card_text(r) for r in [*targets, *own_sources]):
        return []
    lines = sorted(own_sources, key=lambda r: r.position)
    at = {line.id: k for k, line in enumerate(lines)}
    said: dict[str, list[int]] = {}
    for row in rows:
        if row.target_id and row.source_id in at:
            said[row.target_id] = [at[row.source_id]]
    paired = {row.target_id for row in rows if row.target_id and row.source_id}
    new: list[Alignment] = []
    free = [t for t in targets if t.id not in paired]
    for target, window in _stretches(ctx, targets, free, lines, said):
        said[target.id] = window
        first, *rest = window
        similarity = ctx.joined_similarity([lines[k] for k in window], target) or 0.0
        new.append(_row(lines[first], target, Method.ORDER, similarity, lang, group, embedder))
        new.extend(
            _row(lines[k], target, Method.MERGED, similarity, lang, group, embedder) for k in rest
        )
    for parts in _listed_keywords(ctx, free, lines, said):
        for n, (target, k, value) in enumerate(parts):
            said[target.id] = [k]
            method = Method.ORDER if n == 0 else Method.MERGED
            new.append(_row(lines[k], target, method, value, lang, group, embedder))
    own = {line.id for line in lines}
    borrowed = {
        row.target_id
        for row in rows
        if row.target_id
        and row.source_id
        and row.source_id not in own
        and not _same_line_with_reminder(ctx.by_id[row.source_id], lines)
    }
    for target, k, value in _keywords_printed_apart(ctx, targets, free, borrowed, lines, said):
        said[target.id] = [k]
        new.append(_row(lines[k], target, Method.MERGED, value, lang, group, embedder))
    by_id = {t.id: t for t in targets}
    for target_id, run, values in _keywords_run_together(ctx, by_id, lines, said):
        for k, value in zip(run, values, strict=True):
            if k not in said[target_id]:
                new.append(
                    _row(lines[k], by_id[target_id], Method.MERGED, value, lang, group, embedder)
                )
        said[target_id] = run
    taken = {k for window in said.values() for k in window}
    while True:
        best: tuple[float, str, int] | None = None
        for target_id, window in sorted(said.items()):
            target = by_id.get(target_id)
            if target is None:
                continue
            for k in (min(window) - 1, max(window) + 1):
                if 0 <= k < len(lines) and k not in taken and len(window) < MAX_JOINED_LINES:
                    gain = _gain(ctx, lines, window, k, target)
                    if gain is not None and (best is None or gain > best[0]):
                        best = (gain, target_id, k)
        if best is None:
            break
        _, target_id, k = best
        said[target_id] = sorted([*said[target_id], k])
        taken.add(k)
        target = by_id[target_id]
        similarity = ctx.joined_similarity([lines[i] for i in said[target_id]], target) or 0.0
        new.append(_row(lines[k], target, Method.MERGED, similarity, lang, group, embedder))
    new.extend(_split_lines(ctx, targets, free, lines, said, lang, group, embedder))
    return new


def _split_lines(
    ctx: AlignContext,
    targets: list[Ruling],
    free: list[Ruling],
    lines: list[Ruling],
    said: dict[str, list[int]],
    lang: str | None,
    group: str,
    embedder: str,
) -> list[Alignment]:
    """``merged`` rows for paragraphs paired with nothing that say part of the line their
    neighbour is paired with (a printing that gives "Defender; reach" as two lines, 守军 and
    the reach sentence): the line is the paragraph's closest, close enough
    (``PIECE_MIN_SIMILARITY``, reminder text left out where that is closer, or one keyword
    of a line that lists several, "Lifelink, protection from …" for 系命), and the
    paragraph has no kind of symbol the line lacks. A printing's own lines (reminder text
    alone, a colour sentence) are left as they are."""
    ordered = sorted(targets, key=lambda t: t.position)
    unpaired = {t.id for t in free}
    found = []
    for at, target in enumerate(ordered):
        if target.id not in unpaired or target.id in said or is_reminder_line(target):
            continue
        neighbours = [t for t in ordered[max(0, at - 1) : at + 2] if t.id in said]
        near = {k for t in neighbours for k in said[t.id]}
        if not near:
            continue
        similarity = ctx.head_similarities(lines, target)
        for k in near:  # a keyword of a listing line, given a line of its own
            items = ctx.item_similarities(lines[k], target)
            if len(items):
                similarity[k] = max(similarity[k], float(items.max()))
        best = int(similarity.argmax())
        value = float(similarity[best])
        if best not in near or value < PIECE_MIN_SIMILARITY:
            continue
        if not _kinds(target.text) <= _kinds(lines[best].text):
            continue
        found.append(_row(lines[best], target, Method.MERGED, value, lang, group, embedder))
    return found


def _listed_keywords(
    ctx: AlignContext, free: list[Ruling], lines: list[Ruling], said: dict[str, list[int]]
) -> list[list[tuple[Ruling, int, float]]]:
    """An English line that lists keywords ("Reach, deathtouch") printed as one paragraph
    per keyword, with their reminders (延势（…）, 死触（…）): paragraphs paired with nothing,
    as many as the line's keywords and alone in the line's stretch, each closest to its
    keyword in order (``KEYWORD_MIN_SIMILARITY``). The first is the line's pair, the others
    say parts of it (``merged``)."""
    taken = {k for window in said.values() for k in window}
    position = {t.id: t.position for t in free}
    found = []
    for k, line in enumerate(lines):
        if k in taken or len(ctx.item_rows.get(line.id, ())) < 2:
            continue
        low = max((ctx.by_id[t].position for t, w in said.items() if max(w) < k), default=-1)
        high = min((ctx.by_id[t].position for t, w in said.items() if min(w) > k), default=math.inf)
        here = sorted(
            (t for t in free if t.id not in said and low < position[t.id] < high),
            key=lambda t: t.position,
        )
        if len(here) != len(ctx.item_rows[line.id]):
            continue
        values = [float(ctx.item_similarities(line, t)[n]) for n, t in enumerate(here)]
        closest = [int(ctx.item_similarities(line, t).argmax()) for t in here]
        if closest == list(range(len(here))) and min(values) >= KEYWORD_MIN_SIMILARITY:
            found.append([(t, k, v) for t, v in zip(here, values, strict=True)])
    return found


def _keywords_printed_apart(
    ctx: AlignContext,
    targets: list[Ruling],
    free: list[Ruling],
    borrowed: set[str],
    lines: list[Ruling],
    said: dict[str, list[int]],
) -> list[tuple[Ruling, int, float]]:
    """An English line that lists keywords ("Flying, vigilance") printed a keyword a
    paragraph (飞行 / 警戒（…）) when the 1-1 pairing has paired one paragraph with the line:
    the paragraphs next to it, paired with nothing or with another card's line (a lone
    keyword with reminder text looks like any other keyword line: 警戒（…） and "Defender
    (…)"), as many with it as the line's keywords, each one keyword (``is_printed_keyword``),
    closest to its keyword in order and not unrelated to it (``KEYWORD_MIN_SIMILARITY``, as
    ``_listed_keywords``). Each says part of the line (``merged``): the card's own line
    outranks another card's."""
    ordered = sorted(targets, key=lambda t: t.position)
    available = {t.id for t in free if t.id not in said} | borrowed
    found = []
    for at, target in enumerate(ordered):
        window = said.get(target.id)
        if not window or len(window) != 1:
            continue
        k = window[0]
        size = len(ctx.item_rows.get(lines[k].id, ()))
        if size < 2:
            continue
        for start in range(max(0, at - size + 1), min(at, len(ordered) - size) + 1):
            run = ordered[start : start + size]
            others = [t for t in run if t is not target]
            if any(t.id not in available or is_reminder_line(t) for t in others) or not all(
                is_printed_keyword(t.text) for t in run
            ):
                continue
            values = [ctx.item_similarities(lines[k], t) for t in run]
            if [int(v.argmax()) for v in values] != list(range(size)):
                continue
            if min(float(v[n]) for n, v in enumerate(values)) < KEYWORD_MIN_SIMILARITY:
                continue
            found.extend(
                (t, k, float(v[n]))
                for n, (t, v) in enumerate(zip(run, values, strict=True))
                if t is not target
            )
            available.difference_update(t.id for t in others)
            break
    return found


def _same_line_with_reminder(source: Ruling, lines: list[Ruling]) -> bool:
    """Whether another card's line is one of these lines with its reminder text (the pair
    ``card_rulings._with_reminder`` makes for a keyword printed with its reminder)."""
    head = REMINDER_TEXT.sub("", source.text).strip()
    return head != source.text and any(line.text.strip() == head for line in lines)


def _keywords_run_together(
    ctx: AlignContext, by_id: dict[str, Ruling], lines: list[Ruling], said: dict[str, list[int]]
) -> list[tuple[str, list[int], list[float]]]:
    """Keyword lines of the English ("Flash" / "Reach") printed as one paragraph that lists
    them ("Destello, alcance."; 闪现，延势), the reverse of ``_listed_keywords``: a paragraph
    paired with one keyword line, whose listed keywords are as many as a run of keyword
    lines around it that nothing else says, each keyword closest to its line in order (the
    order's similarities sum highest of all orders: a lone keyword embeds poorly) and not
    unrelated to it (``KEYWORD_MIN_SIMILARITY``). Gives the target, the run and the
    similarities of its keywords."""
    taken = {k for window in said.values() for k in window}
    found = []
    for target_id, window in sorted(said.items()):
        target = by_id.get(target_id)
        if target is None or len(window) != 1:
            continue
        k, size = window[0], len(ctx.printed_item_rows.get(target_id, ()))
        for start in range(max(0, k - size + 1), min(k, len(lines) - size) + 1):
            run = list(range(start, start + size))
            if any(j != k and j in taken for j in run) or not all(
                is_keyword_line(lines[j].text) for j in run
            ):
                continue
            similarity = ctx.printed_item_similarities(target, [lines[j] for j in run])
            in_order = [float(similarity[n, n]) for n in range(size)]
            best = max(
                sum(float(similarity[n, j]) for n, j in enumerate(order))
                for order in permutations(range(size))
            )
            if sum(in_order) >= best and min(in_order) >= KEYWORD_MIN_SIMILARITY:
                found.append((target_id, run, in_order))
                taken.update(run)
                break
    return found


def _stretches(
    ctx: AlignContext,
    targets: list[Ruling],
    free: list[Ruling],
    lines: list[Ruling],
    said: dict[str, list[int]],
) -> list[tuple[Ruling, list[int]]]:
    """Paragraphs paired with nothing, each alone between the pairs made with at least two
    unpaired lines in the same stretch of the English, with the run of those lines (2 to
    MAX_JOINED_LINES) closest to it, when it is close enough and closer than any one line."""
    position = {t.id: t.position for t in targets}
    anchors = sorted((min(window), position[t]) for t, window in said.items() if t in position)
    bounds = [(-1, -math.inf), *anchors, (len(lines), math.inf)]
    found = []
    for (k_low, t_low), (k_high, t_high) in pairwise(bounds):
        here = [t for t in free if t_low < t.position < t_high]
        gap = list(range(k_low + 1, k_high))
        if len(here) != 1 or len(gap) < 2:
            continue
        target = here[0]
        best: tuple[float, list[int]] | None = None
        for size in range(2, min(MAX_JOINED_LINES, len(gap)) + 1):
            for start in range(len(gap) - size + 1):
                window = gap[start : start + size]
                value = ctx.joined_similarity([lines[k] for k in window], target)
                if value is not None and (best is None or value > best[0]):
                    best = (value, window)
        if best is None or best[0] < OWN_MIN_SIMILARITY:
            continue
        singles = ctx.matrix([lines[k] for k in gap], [target])[:, 0]
        if best[0] >= float(singles.max()):
            found.append((target, best[1]))
    return found


def _gain(
    ctx: AlignContext, lines: list[Ruling], window: list[int], k: int, target: Ruling
) -> float | None:
    """How much closer the paragraph is to its lines with line ``k`` joined; None when the
    line does not join them (``MERGE_GAIN``, the length and the symbols)."""
    now = [lines[i] for i in window]
    joined = [lines[i] for i in sorted([*window, k])]
    if not _kinds(REMINDER_TEXT.sub("", lines[k].text)) <= _kinds(target.text):
        return None
    before, after = ctx.joined_similarity(now, target), ctx.joined_similarity(joined, target)
    letters = _letters(target.text)
    if (
        before is not None
        and after is not None
        and after - before > MERGE_GAIN
        and _misfit(letters, joined) <= _misfit(letters, now) + LENGTH_SLACK
    ):
        return after - before
    return _said_by_a_sentence(ctx, lines, k, target)


def _said_by_a_sentence(
    ctx: AlignContext, lines: list[Ruling], k: int, target: Ruling
) -> float | None:
    """A short line joined to a long one moves the joined text's embedding little ("Flying"
    before a whole triggered ability): the line is said when one sentence of the paragraph
    and the line are each other's closest (among the card's lines and the paragraph's
    sentences) and close enough (``PIECE_MIN_SIMILARITY``). Ranked below every join."""
    found = ctx.piece_similarities(target, lines)
    if found is None:
        return None
    piece = int(found[:, k].argmax())
    value = float(found[piece, k])
    if value < PIECE_MIN_SIMILARITY or int(found[piece].argmax()) != k:
        return None
    return value - 2.0


def _misfit(letters: float, lines: list[Ruling]) -> float:
    """How far a translation's length is from the usual for these English lines, in
    spreads of the log ratio."""
    english = sum(_letters(line.text) for line in lines)
    return abs(math.log(letters / (LENGTH_RATIO * english))) / LENGTH_SPREAD


def _letters(text: str) -> float:
    return max(1.0, float(weighted_letters(REMINDER_TEXT.sub("", text))))


def _kinds(text: str) -> set[str]:
    """The kinds of symbol a text has (mana, tap, loyalty…): copied, never translated,
    though a mana symbol may be an older notation ({1} for {C}). An English line is read
    without its reminder text, which printed cards often leave out."""
    return {kind for kind, found in tokens(text).items() if any(n > 0 for n in found.values())}


def _row(
    source: Ruling,
    target: Ruling,
    method: Method,
    similarity: float,
    lang: str | None,
    group: str,
    embedder: str,
) -> Alignment:
    return Alignment(
        source_id=source.id,
        target_id=target.id,
        lang=lang,
        score=calibrated(similarity, 0.0, Method.ORDER, embedder),
        method=str(method),
        similarity=round(similarity, 4),
        group=group,
    )
