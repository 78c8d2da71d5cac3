"""No learner markup runs on a page the course writes: a Content-Security-Policy on every page, and learners'
HTML sanitised with nh3 (the Python binding of the Rust sanitiser ammonia) before it reaches a page.

report.html and the similarity pages are built here, every learner string escaped; nbgrader's feedback pages
render a learner's markdown (and raw HTML cells) as it is, so `clean_feedback` passes the notebook part of
such a page through the sanitiser: what nbconvert writes for a notebook (its layout, highlighted code, text
outputs) is kept; script, event handlers, `javascript:` and `data:` links, frames, forms, styles and any
element or class not listed below are removed, the text inside kept. The policy (`POLICY`) forbids every
script, inline or remote, and every resource but inline styles and `data:` images, so a page that the
sanitiser somehow missed still runs nothing and calls nowhere.
"""

from __future__ import annotations

import re

import nh3

POLICY = (
    "default-src 'none'; script-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; "
    "base-uri 'none'; form-action 'none'"
)
"""The pages' Content-Security-Policy: no script at all, no request anywhere; inline CSS and SVG render."""

POLICY_META = f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">'

TAGS = frozenset({
    "a", "abbr", "b", "blockquote", "br", "caption", "cite", "code", "col", "colgroup", "dd", "del", "details",
    "div", "dl", "dt", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "mark",
    "ol", "p", "pre", "q", "s", "samp", "small", "span", "strong", "sub", "summary", "sup", "table", "tbody",
    "td", "tfoot", "th", "thead", "tr", "u", "ul", "var",
})  # fmt: skip
"""The elements a feedback page's notebook part may hold: text, lists, tables, code, images."""

ATTRIBUTES = {
    "*": {"class", "id", "title"},
    "a": {"href", "name"},
    "img": {"src", "alt", "width", "height"},
    "td": {"colspan", "rowspan", "align"},
    "th": {"colspan", "rowspan", "align"},
    "ol": {"start"},
}
"""Their attributes: no event handler, no style."""

REMOVED = frozenset({"script", "style", "iframe", "object", "embed", "template", "noscript", "svg", "math"})
"""Elements removed with everything inside them (the others not listed lose their tags, keep their text)."""

URL_SCHEMES = frozenset({"http", "https", "mailto"})
"""Links may point to these (and within the page); never `javascript:` or `data:`."""

CLASS = re.compile(
    r"(?:ansi-[a-z-]+|hl-[a-z0-9]+|highlight|[a-z]{1,3}[0-9]?|cell|border-box-sizing|code_cell|text_cell|rendered|"
    r"rendered_html|text_cell_render|inner_cell|input|input_area|input_prompt|prompt|output|output_area|"
    r"output_wrapper|output_subarea|output_text|output_stream|output_stdout|output_stderr|output_error|"
    r"output_execute_result|output_prompt|panel|panel-primary|panel-default|panel-heading|panel-body|"
    r"panel-footer|nbgrader_cell|nbgrader-label|pull-right|anchor-link|container)"
)
"""The class names nbconvert and nbgrader give a notebook's parts (and Pygments' short token classes):
nothing a learner could use to lay an element over the page (Bootstrap's `modal`, `navbar-fixed-top`) or hide
one (`hidden`)."""

SCRIPT = re.compile(r"<script\b[^>]*>.*?</script\s*>", re.IGNORECASE | re.DOTALL)
"""The template's own scripts (MathJax from a CDN and its configuration), which the policy would refuse anyway."""

FONT_FACE = re.compile(r"@font-face\s*\{[^}]*\}", re.IGNORECASE)
"""The template's font files (Bootstrap's glyph font, named beside the page, which is not there): a request the
policy would refuse, with an error in the console of every instructor who opens the page."""

NOTEBOOK = '<div class="container" id="notebook-container">'
"""Where nbgrader's feedback template puts the notebook, inside its own panel."""


def _attribute(element: str, attribute: str, value: str) -> str | None:
    """Keep only listed classes, and no `data:` or `javascript:` source whatever its spelling."""
    if attribute == "class":
        kept = [name for name in value.split() if CLASS.fullmatch(name)]
        return " ".join(kept) or None
    if attribute in ("href", "src") and re.sub(r"[\s\x00-\x1f]", "", value).lower().startswith(
        ("javascript:", "data:", "vbscript:")
    ):
        return None
    return value


def clean(markup: str) -> str:
    """Learner-authored HTML (a notebook as nbconvert rendered it) with nothing that runs or overlays kept."""
    return nh3.clean(
        markup,
        tags=set(TAGS),
        clean_content_tags=set(REMOVED),
        attributes={tag: set(names) for tag, names in ATTRIBUTES.items()},
        attribute_filter=_attribute,
        url_schemes=set(URL_SCHEMES),
        link_rel=None,
        strip_comments=True,
    )


def with_policy(page: str) -> str:
    """A whole page with the Content-Security-Policy first in its head (an earlier one replaced)."""
    page = page.replace(POLICY_META, "")
    head = re.search(r"<head[^>]*>", page, re.IGNORECASE)
    if head is None:
        return POLICY_META + page
    return page[: head.end()] + POLICY_META + page[head.end() :]


def clean_feedback(page: str) -> str:
    """nbgrader's feedback page with its notebook part sanitised (from the notebook's container to the end of
    the body: nbgrader's heading and table of contents above it are the template's), the template's scripts
    and font files removed (math shows as its TeX source) and the policy set."""
    start = page.find(NOTEBOOK)
    end = page.rfind("</body>")
    if start < 0 or end < start:  # not nbgrader's layout: sanitise the whole body
        body = re.search(r"<body[^>]*>", page, re.IGNORECASE)
        start = body.end() if body else 0
        end = end if end >= start else len(page)
    else:
        start += len(NOTEBOOK)
    template = FONT_FACE.sub("", SCRIPT.sub("", page[:start]))
    return with_policy(template + clean(page[start:end]) + page[end:])
