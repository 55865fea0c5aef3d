/* Flame graphs of a finished profile's call tree (client.h, fxt_flame_*): folded stacks
 * ("frame;frame;frame VALUE", one line per call path with time of its own, VALUE in ns: the
 * text flamegraph.pl, inferno and speedscope read) and a self-contained SVG (frames with
 * <title> hover text, an inline script to zoom on a click and to search; no network). A
 * frame's width is the sum of its path's own time and that of every path below it: the
 * path's inclusive time (client/profile.c's node self times; on-CPU self times when context
 * switches were given, so widths are then on-CPU time). Frames: the process, its thread with
 * per-thread roots, then the call path (lock waits, tracer stalls, thread spans marked as
 * report --tree marks them). Memory: one weight per tree node and one child list per level
 * of the walk; output is written as the walk goes. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "common/grow.h"

#define SVG_WIDTH 1200.0	/* image width (px) */
#define SVG_PAD 10.0		/* left and right margins */
#define SVG_ROW 16.0		/* frame height */
#define SVG_TOP 60.0		/* title and buttons */
#define SVG_BOTTOM 30.0		/* details line */
#define SVG_MIN_PX 0.1		/* narrower frames are left out (their time is in the parent's
				 * width) */

/* One top frame: a process or a thread of one; its roots' trees below it. */
struct top {
	uint64_t pid, tid;
	uint32_t node;		/* the root's node (thread frames; processes without threads) */
	uint64_t weight;
};

struct walk {
	FILE *f;
	struct fxt_prof *p;
	const struct fxt_flame_opts *o;
	uint64_t *weight;	/* node index -> inclusive weight */
	struct top *tops;	/* the roots by process and thread (tops()) */
	size_t ntops;
	char *path;		/* folded: the frames above, joined by ';' */
	size_t plen, pcap;
	uint64_t all;		/* the root's weight */
	double scale;		/* SVG: px per weight unit */
	unsigned rows;		/* SVG: deepest row drawn + 1 */
	int measure;		/* SVG: find rows only */
	struct fxt_flame_stats *st;
};

/* Weights: each node's self time plus its children's weights. A child is always made after
 * its parent (a higher index), so one walk down the indexes sees children first. */
static uint64_t *weights(struct fxt_prof *p)
{
	uint32_t n = fxt_prof_nodes(p);
	uint64_t *w = calloc((size_t)n + 1, sizeof(*w));

	if (!w)
		return NULL;
	for (uint32_t i = n; i >= 1; i--) {
		const struct fxt_prof_node *nd = fxt_prof_node(p, i);
		w[i] = nd->self;
		for (uint32_t c = nd->child; c; c = fxt_prof_node(p, c)->sibling)
			w[i] += w[c];
	}
	return w;
}

/* The length of the valid UTF-8 sequence at s (at most len bytes), 0 when invalid. */
static size_t utf8_len(const unsigned char *s, size_t len)
{
	size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;

	if (s[0] >= 0xf5 || !n || n > len)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* Writes at most max characters of s as XML text (escaped; invalid UTF-8 and control
 * characters as '?'); ".." ends a cut text. */
static void put_xml(FILE *f, const char *s, size_t len, size_t max)
{
	size_t chars = 0;

	for (size_t i = 0; i < len; chars++) {
		unsigned char ch = (unsigned char)s[i];
		size_t n;
		if (chars + 2 >= max && chars + (len - i) > max) {
			fputs("..", f);
			return;
		}
		if (ch < 0x80) {
			switch (ch) {
			case '<': fputs("&lt;", f); break;
			case '>': fputs("&gt;", f); break;
			case '&': fputs("&amp;", f); break;
			case '"': fputs("&quot;", f); break;
			default: fputc(ch < 0x20 || ch == 0x7f ? '?' : ch, f);
			}
			i++;
		} else if ((n = utf8_len((const unsigned char *)s + i, len - i))) {
			fwrite(s + i, 1, n, f);
			i += n;
		} else {
			fputc('?', f);
			i++;
		}
	}
}

/* A color for a frame of this kind and name: warm for functions, blue for lock waits, gray
 * for tracer stalls, green for thread spans, violet for processes and threads. */
static void color(unsigned kind, int top, const char *s, size_t len, char *buf, size_t size)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	unsigned a = h % 100, b = (h >> 8) % 100;
	if (top)
		snprintf(buf, size, "rgb(%u,%u,%u)", 170 + a / 4, 150 + b / 4, 220);
	else if (kind == FXT_PK_LOCK)
		snprintf(buf, size, "rgb(%u,%u,%u)", 80 + a / 2, 140 + b / 2, 235);
	else if (kind == FXT_PK_STALL)
		snprintf(buf, size, "rgb(%u,%u,%u)", 160 + a / 4, 160 + a / 4, 160 + a / 4);
	else if (kind == FXT_PK_THREAD)
		snprintf(buf, size, "rgb(%u,%u,%u)", 90 + a / 2, 190 + b / 2, 90);
	else
		snprintf(buf, size, "rgb(%u,%u,%u)", 205 + a / 2, (h >> 16) % 230, (h >> 24) % 55);
}

/* One SVG frame: row depth (0: the root, at the bottom), x (px), weight; name is mark+name. */
static void svg_frame(struct walk *w, unsigned depth, double x, uint64_t weight,
		      const char *mark, struct fxt_sv name, unsigned kind, int top)
{
	double width = (double)weight * w->scale;
	double y = SVG_TOP + (w->rows - 1 - depth) * SVG_ROW;
	size_t ml = strlen(mark), fit = width > 6 ? (size_t)((width - 6) / 7) : 0;
	char t[32], fill[32];

	color(kind, top, name.s, name.len, fill, sizeof(fill));
	fprintf(w->f, "<g class=\"f\"><title>");
	put_xml(w->f, mark, ml, SIZE_MAX);
	put_xml(w->f, name.s, name.len, SIZE_MAX);
	fprintf(w->f, " (%s, %.2f%%)</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
		"height=\"%.1f\" fill=\"%s\" rx=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
		fxt_time_fmt(t, sizeof(t), weight), w->all ? 100.0 * weight / w->all : 0.0, x, y,
		width, SVG_ROW - 1, fill, x + 3, y + SVG_ROW - 4.5);
	if (fit >= 3) {
		put_xml(w->f, mark, ml, fit);
		if (fit > ml)
			put_xml(w->f, name.s, name.len, fit - ml);
	}
	fprintf(w->f, "</text></g>\n");
}

/* Appends frame mark+name to the folded path. Returns the length to cut back to, or -ENOMEM. */
static long path_push(struct walk *w, const char *mark, struct fxt_sv name)
{
	size_t at = w->plen, ml = strlen(mark), need = at + 1 + ml + name.len + 1;
	char *q;

	if (FXT_GROW(w->path, &w->pcap, need) < 0)
		return -ENOMEM;
	q = w->path + at;
	if (at)
		*q++ = ';';
	for (const char *s = mark; *s; s++)
		*q++ = *s;
	for (size_t i = 0; i < name.len; i++) {
		unsigned char ch = (unsigned char)name.s[i];
		*q++ = ch == ';' ? ':' : ch < 0x20 || ch == 0x7f ? ' ' : (char)ch;
	}
	w->plen = (size_t)(q - w->path);
	return (long)at;
}

static int name_cmp(const void *x, const void *y, void *arg)
{
	const struct fxt_prof_node *a = fxt_prof_node(arg, *(const uint32_t *)x);
	const struct fxt_prof_node *b = fxt_prof_node(arg, *(const uint32_t *)y);
	int c = strcmp(fxt_prof_mark(a->kind), fxt_prof_mark(b->kind));	/* calls first */

	if (!c)
		c = sv_cmp(a->name, b->name);
	return c ? c : fxt_cmp_u64(a->kind, b->kind);	/* FUNC and SAMPLE */
}

/* The frames below node idx, drawn from x (px) at row depth (SVG) or written with the path
 * so far (folded), children in name order. own: the node's own time (folded). */
static int walk_children(struct walk *w, uint32_t idx, unsigned depth, double x, uint64_t own)
{
	const struct fxt_prof_node *n = fxt_prof_node(w->p, idx);
	uint32_t *kids, cnt = 0;

	for (uint32_t c = n->child; c; c = fxt_prof_node(w->p, c)->sibling)
		cnt += w->weight[c] != 0;
	if (cnt && depth >= FXT_FLAME_MAX_DEPTH) {	/* deeper paths' time stays in this frame */
		w->st->cut++;
		own = w->weight[idx];
		cnt = 0;
	}
	if (!w->scale && own) {
		fwrite(w->path, 1, w->plen, w->f);
		fprintf(w->f, " %" PRIu64 "\n", own);
	}
	if (!cnt)
		return 0;
	if (!(kids = malloc(cnt * sizeof(*kids))))
		return -ENOMEM;
	cnt = 0;
	for (uint32_t c = n->child; c; c = fxt_prof_node(w->p, c)->sibling)
		if (w->weight[c])
			kids[cnt++] = c;
	qsort_r(kids, cnt, sizeof(*kids), name_cmp, w->p);
	for (uint32_t i = 0; i < cnt; i++) {
		const struct fxt_prof_node *c = fxt_prof_node(w->p, kids[i]);
		const char *mark = fxt_prof_mark(c->kind);
		uint64_t cw = w->weight[kids[i]];
		int rc;
		if (w->scale) {
			if ((double)cw * w->scale >= SVG_MIN_PX) {
				if (w->measure) {
					if (depth + 1 >= w->rows)
						w->rows = depth + 2;
				} else {
					svg_frame(w, depth + 1, x, cw, mark, c->name, c->kind, 0);
				}
				rc = walk_children(w, kids[i], depth + 1, x, 0);
			} else {
				rc = 0;
			}
			x += (double)cw * w->scale;
		} else {
			long at = path_push(w, mark, c->name);
			if (at < 0) {
				free(kids);
				return -ENOMEM;
			}
			rc = walk_children(w, kids[i], depth + 1, x, c->self);
			w->plen = (size_t)at;
		}
		if (rc < 0) {
			free(kids);
			return rc;
		}
	}
	free(kids);
	return 0;
}

static int top_cmp(const void *x, const void *y)
{
	const struct top *a = x, *b = y;
	int c = fxt_cmp_u64(a->pid, b->pid);

	return c ? c : fxt_cmp_u64(a->tid, b->tid);
}

/* w's tops, by process and thread, with their weights; w->all their sum. Returns 0 or
 * -ENOMEM (w->tops NULL). */
static int tops(struct walk *w)
{
	size_t n;
	struct fxt_prof_root *roots = fxt_prof_roots(w->p, w->o->kind, &n);
	struct top *t = malloc((n ? n : 1) * sizeof(*t));

	if (!t)
		return -ENOMEM;
	w->all = 0;
	for (size_t i = 0; i < n; i++) {
		t[i] = (struct top){ roots[i].key.a, roots[i].key.b, roots[i].node,
				     w->weight[roots[i].node] };
		w->all += t[i].weight;
	}
	qsort(t, n, sizeof(*t), top_cmp);
	w->tops = t;
	w->ntops = n;
	return 0;
}

/* The process and thread frames and their trees, from x (SVG); nothing when all weighs 0. */
static int walk_tops(struct walk *w)
{
	const struct top *t = w->tops;
	size_t n = w->all ? w->ntops : 0;
	double x = SVG_PAD;
	char label[2][256];

	for (size_t i = 0, j; i < n; i = j) {
		uint64_t pw = 0;
		for (j = i; j < n && t[j].pid == t[i].pid; j++)
			pw += t[j].weight;
		if (!pw)
			continue;
		w->o->label(w->o->ctx, t[i].pid, 0, label[0], sizeof(label[0]));
		struct fxt_sv pn = { label[0], (uint32_t)strlen(label[0]) };
		double px = x;
		long at0 = 0;
		if (w->scale && !w->measure)
			svg_frame(w, 1, x, pw, "", pn, FXT_PK_FUNC, 1);
		if (!w->scale && (at0 = path_push(w, "", pn)) < 0)
			return -ENOMEM;
		for (size_t k = i; k < j; k++) {
			int rc;
			if (!t[k].weight)
				continue;
			if (!w->o->threads) {
				rc = walk_children(w, t[k].node, 1, px, 0);
			} else {
				long at1 = 0;
				w->o->label(w->o->ctx, t[k].pid, t[k].tid, label[1], sizeof(label[1]));
				struct fxt_sv tn = { label[1], (uint32_t)strlen(label[1]) };
				if (w->scale && !w->measure &&
				    (double)t[k].weight * w->scale >= SVG_MIN_PX)
					svg_frame(w, 2, px, t[k].weight, "", tn, FXT_PK_FUNC, 1);
				if (!w->scale && (at1 = path_push(w, "", tn)) < 0)
					return -ENOMEM;
				rc = walk_children(w, t[k].node, 2, px, 0);
				w->plen = (size_t)at1;
			}
			if (rc < 0)
				return rc;
			px += (double)t[k].weight * w->scale;
		}
		w->plen = (size_t)at0;
		x += (double)pw * w->scale;
	}
	return 0;
}

/* Frees what walk_init made (also after it failed) and ends the output: returns rc, or the
 * error of writing it. */
static int walk_end(struct walk *w, int rc)
{
	free(w->tops);
	free(w->weight);
	free(w->path);
	if (!rc && fflush(w->f))
		rc = -errno;
	else if (!rc && ferror(w->f))
		rc = -EIO;
	return rc;
}

/* Sets up w with its weights and tops. Returns 0 or -ENOMEM. */
static int walk_init(struct walk *w, FILE *f, struct fxt_prof *p, const struct fxt_flame_opts *o,
		     struct fxt_flame_stats *st)
{
	memset(st, 0, sizeof(*st));
	*w = (struct walk){ .f = f, .p = p, .o = o, .st = st };
	if (!(w->weight = weights(p)))
		return -ENOMEM;
	return tops(w);
}

int fxt_flame_folded(FILE *f, struct fxt_prof *p, const struct fxt_flame_opts *o,
		     struct fxt_flame_stats *st)
{
	struct walk w;
	int rc = walk_init(&w, f, p, o, st);

	if (!rc)
		rc = walk_tops(&w);
	return walk_end(&w, rc);
}

/* The script: hover details, click to zoom (ancestors stay, full width and faded), Reset
 * Zoom, search by regular expression (the Search button, Ctrl-F or '/'), Escape to clear.
 * It marks the document with data-ready=FRAMES when set up; with #selftest in the address
 * it zooms on the widest frame above the root's children and searches, and says what it saw
 * in data-selftest (a headless browser's check). */
static const char script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"(function () {\n"
	"'use strict';\n"
	"var svg = document.documentElement, PAD = +svg.getAttribute('data-pad');\n"
	"var FW = +svg.getAttribute('width') - 2 * PAD;\n"
	"var details = document.getElementById('details'), unz = document.getElementById('unzoom');\n"
	"var matched = document.getElementById('matched');\n"
	"var frames = Array.prototype.map.call(document.querySelectorAll('g.f'), function (g) {\n"
	"  var r = g.querySelector('rect'), t = g.querySelector('title').textContent;\n"
	"  return { g: g, r: r, t: g.querySelector('text'), title: t,\n"
	"    name: t.slice(0, t.lastIndexOf(' (')), x: +r.getAttribute('x'),\n"
	"    w: +r.getAttribute('width'), y: +r.getAttribute('y'), fill: r.getAttribute('fill') };\n"
	"});\n"
	"function place(e, x, w) {\n"
	"  var n = Math.floor((w - 6) / 7);\n"
	"  e.r.setAttribute('x', x.toFixed(2)); e.r.setAttribute('width', w.toFixed(2));\n"
	"  e.t.setAttribute('x', (x + 3).toFixed(2));\n"
	"  e.t.textContent = n < 3 ? '' : e.name.length <= n ? e.name : e.name.slice(0, n - 2) + '..';\n"
	"}\n"
	"var E = 0.006;\n"
	"function zoom(f) {\n"
	"  var s = FW / f.w;\n"
	"  frames.forEach(function (e) {\n"
	"    if (e.y > f.y && e.x <= f.x + E && e.x + e.w >= f.x + f.w - E) {\n"
	"      e.g.style.display = ''; e.g.classList.add('up'); place(e, PAD, FW);\n"
	"    } else if (e.y <= f.y && e.x >= f.x - E && e.x + e.w <= f.x + f.w + E) {\n"
	"      e.g.style.display = ''; e.g.classList.remove('up');\n"
	"      place(e, PAD + (e.x - f.x) * s, e.w * s);\n"
	"    } else {\n"
	"      e.g.style.display = 'none';\n"
	"    }\n"
	"  });\n"
	"  unz.style.display = '';\n"
	"}\n"
	"function unzoom() {\n"
	"  frames.forEach(function (e) {\n"
	"    e.g.style.display = ''; e.g.classList.remove('up'); place(e, e.x, e.w);\n"
	"  });\n"
	"  unz.style.display = 'none';\n"
	"}\n"
	"function search(re) {\n"
	"  var hits = [], sum = 0, end = -1;\n"
	"  frames.forEach(function (e) {\n"
	"    var m = re !== null && re.test(e.name);\n"
	"    e.r.setAttribute('fill', m ? 'rgb(230,0,230)' : e.fill);\n"
	"    if (m) hits.push(e);\n"
	"  });\n"
	"  hits.sort(function (a, b) { return a.x - b.x || b.w - a.w; });\n"
	"  hits.forEach(function (e) {\n"
	"    if (e.x + e.w > end) { sum += e.x + e.w - Math.max(e.x, end); end = e.x + e.w; }\n"
	"  });\n"
	"  matched.textContent = re === null ? '' : 'Matched: ' + (100 * sum / FW).toFixed(2) +\n"
	"    '% (' + hits.length + ' frames)';\n"
	"  return hits.length;\n"
	"}\n"
	"function ask() {\n"
	"  var s = window.prompt('Search frames (regular expression):', '');\n"
	"  if (s === null) return;\n"
	"  try { search(s === '' ? null : new RegExp(s)); }\n"
	"  catch (err) { matched.textContent = 'Bad expression: ' + err.message; }\n"
	"}\n"
	"frames.forEach(function (e) {\n"
	"  e.g.addEventListener('click', function () { zoom(e); });\n"
	"  e.g.addEventListener('mouseover', function () { details.textContent = e.title; });\n"
	"  e.g.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
	"});\n"
	"unz.addEventListener('click', unzoom);\n"
	"document.getElementById('search').addEventListener('click', ask);\n"
	"window.addEventListener('keydown', function (ev) {\n"
	"  if ((ev.key === 'f' && (ev.ctrlKey || ev.metaKey)) || ev.key === '/') {\n"
	"    ev.preventDefault(); ask();\n"
	"  } else if (ev.key === 'Escape') {\n"
	"    unzoom(); search(null);\n"
	"  }\n"
	"});\n"
	"unz.style.display = 'none';\n"
	"svg.setAttribute('data-ready', String(frames.length));\n"
	"if (location.hash === '#selftest') {\n"
	"  var top = null;\n"
	"  frames.forEach(function (e) { if (e.w < FW - E && (!top || e.w > top.w)) top = e; });\n"
	"  var report = 'frames=' + frames.length;\n"
	"  if (top) {\n"
	"    zoom(top);\n"
	"    var shown = frames.filter(function (e) { return e.g.style.display !== 'none'; });\n"
	"    report += ' zoomed=' + JSON.stringify(top.name) + ' width=' +\n"
	"      (+top.r.getAttribute('width')).toFixed(1) + ' shown=' + shown.length;\n"
	"    var quoted = top.name.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\\\$&');\n"
	"    report += ' matches=' + search(new RegExp('^' + quoted + '$'));\n"
	"    report += ' ' + matched.textContent.replace(/ /g, '_');\n"
	"  }\n"
	"  svg.setAttribute('data-selftest', report);\n"
	"}\n"
	"})();\n"
	"]]></script>\n";

int fxt_flame_svg(FILE *f, struct fxt_prof *p, const struct fxt_flame_opts *o,
		  struct fxt_flame_stats *st)
{
	struct walk w;
	double height;
	int rc = walk_init(&w, f, p, o, st);

	if (rc < 0)
		return walk_end(&w, rc);
	w.scale = w.all ? (SVG_WIDTH - 2 * SVG_PAD) / (double)w.all : 1;
	w.measure = 1;
	w.rows = o->threads ? 3 : 2;
	rc = walk_tops(&w);
	w.measure = 0;
	st->cut = 0;
	height = SVG_TOP + w.rows * SVG_ROW + SVG_BOTTOM;
	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" data-pad=\"%.0f\">\n"
		"<style>text { font: 12px Verdana, sans-serif; fill: #000; } "
		"g.f text { pointer-events: none; font-size: 11px; } g.f:hover rect { stroke: #000; "
		"stroke-width: 0.5; cursor: pointer; } g.up { opacity: 0.5; } "
		"#search, #unzoom { cursor: pointer; }</style>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f4\"/>\n"
		"<text x=\"%.0f\" y=\"24\" text-anchor=\"middle\" style=\"font-size:17px\">",
		SVG_WIDTH, height, SVG_WIDTH, height, SVG_PAD, SVG_WIDTH / 2);
	put_xml(f, o->title, strlen(o->title), SIZE_MAX);
	fprintf(f, "</text>\n<text x=\"%.0f\" y=\"42\" text-anchor=\"middle\" fill=\"#555\">",
		SVG_WIDTH / 2);
	put_xml(f, o->subtitle, strlen(o->subtitle), SIZE_MAX);
	fprintf(f, "</text>\n"
		"<text id=\"unzoom\" x=\"%.0f\" y=\"24\">Reset Zoom</text>\n"
		"<text id=\"search\" x=\"%.0f\" y=\"24\" text-anchor=\"end\">Search (Ctrl-F)</text>\n"
		"<text id=\"matched\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\"> </text>\n"
		"<text id=\"details\" x=\"%.0f\" y=\"%.0f\"> </text>\n",
		SVG_PAD, SVG_WIDTH - SVG_PAD, SVG_WIDTH - SVG_PAD, height - 10, SVG_PAD,
		height - 10);
	if (!rc && w.all) {
		struct fxt_sv all = { "all", 3 };
		svg_frame(&w, 0, SVG_PAD, w.all, "", all, FXT_PK_FUNC, 1);
		rc = walk_tops(&w);
	}
	fputs(script, f);
	fputs("</svg>\n", f);
	return walk_end(&w, rc);
}
