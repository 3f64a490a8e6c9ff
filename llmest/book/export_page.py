"""The page around a chapter in the static export: nbconvert's JupyterLab template, made to work offline.

nbconvert's template loads require.js, MathJax and mermaid from a CDN. The pages need no AMD loader (no widget
manager and no JavaScript outputs: widgets are drawn from their saved state) and hold no mermaid diagram, so those
two are left out; MathJax 2.7 comes from the ``jupyter-server-mathjax`` package (installed with the workbook) and is
copied beside the pages. Each page also gets the book's navigation bar at its top and bottom, and each worked answer
(a cell that held a solution) is folded under a "Worked answer" line, so the question can be tried first.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

MATHJAX_DIR = "mathjax"  # beside the pages
_MATHJAX_PACKAGE = "jupyter_server_mathjax"
# What is left a plain '$' in the prose once the converter has taken out the formulas is money: MathJax must not pair
# two of them into a formula, so each sits in an element MathJax skips. The chapters write money \\$4, which the
# converter leaves as the text \$4 (MathJax's escape, for JupyterLab); that backslash goes with the escape.
LITERAL_DOLLAR = '<span class="tex2jax_ignore">$</span>'

STYLE = """
.llmest-nav{display:flex;flex-wrap:wrap;gap:.5em 1.5em;align-items:baseline;justify-content:space-between;
  font-family:var(--jp-ui-font-family,sans-serif);margin:1em 0;padding:.5em 0;border-bottom:1px solid #ddd}
.llmest-nav:last-child{border-bottom:none;border-top:1px solid #ddd}
.llmest-nav details{flex:1 1 20em}
.llmest-nav a{color:var(--jp-content-link-color,#1a5fb4);text-decoration:none}
.llmest-nav a:hover{text-decoration:underline}
.llmest-nav summary{cursor:pointer}
.llmest-toc{list-style:none;margin:.3em 0;padding-left:1em;line-height:1.7}
.llmest-toc a[aria-current]{font-weight:bold;color:inherit;text-decoration:none}
.llmest-static-widget{border-left:3px solid #9ab;padding:.4em .8em;margin:.3em 0;overflow-x:auto}
.llmest-static-note{color:#555;font-size:.9em;margin:.4em 0 0}
.llmest-w{display:flex;align-items:center;gap:.4em;max-width:100%;}
.llmest-w-hbox{flex-wrap:wrap}
.llmest-w-vbox,.llmest-w-box{flex-direction:column;align-items:stretch;gap:.3em}
.llmest-w-html,.llmest-w-htmlmath,.llmest-w-label{display:block}
.llmest-w-description{flex:none;min-width:6em}
.llmest-w input[type=text],.llmest-w textarea{flex:1 1 auto;min-width:0}
.llmest-w input,.llmest-w select,.llmest-w textarea,.llmest-w button{font:inherit}
.llmest-w button[aria-pressed]{font-weight:bold}
.llmest-worked{border-left:3px solid #bca;margin:.4em 0;padding:.2em .8em}
.llmest-worked>summary{cursor:pointer;color:var(--jp-content-link-color,#1a5fb4);
  font-family:var(--jp-ui-font-family,sans-serif)}
"""

MATHJAX_CONFIG = r"""
MathJax.Hub.Config({
  TeX: {equationNumbers: {autoNumber: "AMS", useLabelIds: true}},
  // Formulas are in the prose and in LaTeX outputs; an HTML output's '$' is money (the tables, the widgets).
  // mathjax_ignore and mathjax_process are JupyterLab's (MathJax 3) names for the same marks.
  tex2jax: {inlineMath: [['$', '$'], ['\\(', '\\)']], displayMath: [['$$', '$$'], ['\\[', '\\]']],
            processEscapes: true, processEnvironments: true,
            ignoreClass: "tex2jax_ignore|mathjax_ignore|jp-RenderedHTML",
            processClass: "tex2jax_process|mathjax_process"},
  displayAlign: 'center',
  messageStyle: 'none',
  // the package ships the STIX web fonts only (no TeX fonts, no image fonts)
  "HTML-CSS": {availableFonts: [], preferredFont: null, webFont: "STIX-Web", imageFont: null,
               linebreaks: {automatic: true}}
});
"""

TEMPLATE = """{%- extends 'index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block html_head_js_mathjax -%}
<script type="text/x-mathjax-config">""" + MATHJAX_CONFIG + """</script>
<script src="{{ resources.mathjax_url }}"></script>
{%- endblock html_head_js_mathjax -%}
{%- block html_head_css -%}<style>""" + STYLE + """</style>{%- endblock html_head_css -%}
{%- block body_header -%}
{{ super() }}
{{ resources.llmest_nav }}
{%- endblock body_header -%}
{%- block any_cell scoped -%}
{%- if cell.metadata.get("llmest_worked") -%}
<details class="llmest-worked"><summary>{{ resources.llmest_worked }}</summary>
{{ super() }}
</details>
{%- else -%}
{{ super() }}
{%- endif -%}
{%- endblock any_cell -%}
{% block body_footer %}
{{ resources.llmest_nav }}
{{ super() }}
{% endblock body_footer %}
"""


def mathjax_source() -> Path:
    """The folder of MathJax files that the ``jupyter-server-mathjax`` package installs."""
    spec = importlib.util.find_spec(_MATHJAX_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("the static pages take MathJax from the package jupyter-server-mathjax: "
                                  "pip install -e '.[workbook]'")
    return Path(spec.submodule_search_locations[0]) / "static"


def copy_mathjax(out: Path) -> Path:
    """Copy MathJax beside the pages; return where it went."""
    target = out / MATHJAX_DIR
    shutil.copytree(mathjax_source(), target, dirs_exist_ok=True)
    return target


def page_exporter(mathjax_dir: str = MATHJAX_DIR, language_code: str = "en"):
    """nbconvert's HTML exporter with the offline template and a Markdown renderer that keeps money out of
    MathJax; ``mathjax_dir``: where MathJax is, relative to the pages; ``language_code``: the pages' ``lang``."""
    from jinja2 import DictLoader, pass_context
    from nbconvert import HTMLExporter
    from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

    class ProseRenderer(IPythonRenderer):
        def text(self, text: str) -> str:
            return super().text(text).replace("$", LITERAL_DOLLAR)

    class PageExporter(HTMLExporter):
        @pass_context
        def markdown2html(self, context, source):
            # nbconvert's own filter, with the renderer above.
            cell = context.get("cell", {})
            renderer = ProseRenderer(escape=False, attachments=cell.get("attachments", {}),
                                     embed_images=self.embed_images,
                                     path=context.get("resources", {}).get("metadata", {}).get("path", ""),
                                     anchor_link_text=self.anchor_link_text,
                                     exclude_anchor_links=self.exclude_anchor_links, **self.lexer_options)
            html = MarkdownWithMath(renderer=renderer).render(source)
            return html.replace("\\" + LITERAL_DOLLAR, LITERAL_DOLLAR)  # the escape's backslash, a text of its own

    return PageExporter(template_name="lab", template_file="llmest-page.html.j2",
                        extra_loaders=[DictLoader({"llmest-page.html.j2": TEMPLATE})],
                        mathjax_url=f"{mathjax_dir}/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe",
                        language_code=language_code)
