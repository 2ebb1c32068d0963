# md2man.awk: the few Markdown shapes our documents use, as man(7) roff.
#
#   awk -v name=CTXSCOPE-FORMATS -v section=5 -v date=2026 -v source="ctxscope 0.1.0" \
#       -v manual="File Formats" -f ui/doc/md2man.awk ui/doc/formats.md ui/doc/kinds.md
#
# With -v body=1 it writes a part of a page (no .TH, no NAME; '#' and '##'
# both .SH), to be put into a page written by hand.
#
# What it knows: '#' headings (the first one is the page's one-line
# description after NAME; later '#' and '##' are .SH, '###' is .SS), blank
# lines between paragraphs, '- ' and '1. ' list items (one level of nesting
# by indentation), ``` fences and 4-space indented blocks after a blank line
# (shown as written, no fill), '|' tables (a row becomes a tagged paragraph:
# the first cell the tag), inline `code` (bold), **bold**, *italic*,
# [text](url), and '---' rules (dropped). Anything else is text. Roff's
# special characters are escaped: a backslash, a leading '.' or '\''.
# `make man` runs it; tests/doc/run checks groff reads the result without a
# warning. POSIX awk (mawk is enough); no other tool.

function esc(s) {
	gsub(/\\/, "\\e", s)
	return s
}

# A line of text as roff: escapes, then the inline shapes, code first so
# that a '*' inside `...` stays a '*'.
function inline(s,    out, i) {
	s = esc(s)
	out = ""
	if (incode) { # a span left open on the line before
		i = index(s, "`")
		if (i == 0)
			return "\\fB" s "\\fR"
		out = "\\fB" substr(s, 1, i - 1) "\\fR"
		s = substr(s, i + 1)
		incode = 0
	}
	while ((i = index(s, "`")) > 0) {
		out = out emph(substr(s, 1, i - 1))
		s = substr(s, i + 1)
		i = index(s, "`")
		if (i == 0) { # it goes on on the next line
			incode = 1
			return out "\\fB" s "\\fR"
		}
		out = out "\\fB" substr(s, 1, i - 1) "\\fR"
		s = substr(s, i + 1)
	}
	return out emph(s)
}

function emph(s,    t) {
	while (match(s, /\[[^]]+\]\([^)]+\)/)) {
		t = substr(s, RSTART + 1, RLENGTH - 2)
		sub(/\]\(/, " (", t)
		s = substr(s, 1, RSTART - 1) t ")" substr(s, RSTART + RLENGTH)
	}
	while (match(s, /\*\*[^*]+\*\*/))
		s = substr(s, 1, RSTART - 1) "\\fB" substr(s, RSTART + 2, RLENGTH - 4) "\\fR" substr(s, RSTART + RLENGTH)
	while (match(s, /(^|[ (])\*[^* ][^*]*\*/)) {
		t = substr(s, RSTART, RLENGTH)
		lead = substr(t, 1, 1) == "*" ? "" : substr(t, 1, 1)
		t = substr(t, length(lead) + 2, length(t) - length(lead) - 2)
		s = substr(s, 1, RSTART - 1) lead "\\fI" t "\\fR" substr(s, RSTART + RLENGTH)
	}
	return s
}

# A line as roff text: a leading '.' or '\'' would be a request.
function put(s) {
	if (s ~ /^[.']/)
		s = "\\&" s
	print s
}

function upper_heading(s) {
	return toupper(s)
}

function close_nest() {
	if (nested) {
		print ".RE"
		nested = 0
	}
}

function end_block() {
	if (code) {
		print ".fi"
		print ".RE"
		code = 0
	}
}

function heading(level, text) {
	end_block()
	close_nest()
	inlist = 0
	if (!named) {
		named = 1
		print ".SH NAME"
		put(tolower(page) " \\- " inline(text))
		return
	}
	print (level == 3 ? ".SS " : ".SH ") "\"" inline(level == 1 || (body && level == 2) ? upper_heading(text) : text) "\""
	para = 0
}

function start_code() {
	print ".PP"
	print ".RS 2"
	print ".nf"
	code = 1
}

function table_row(line,    n, cells, i, rest) {
	if (line ~ /^\|[-:| ]+\|?[ ]*$/)
		return
	sub(/^\| */, "", line)
	sub(/ *\|[ ]*$/, "", line)
	n = split(line, cells, / *\| */)
	print ".TP"
	put(inline(cells[1]))
	rest = ""
	for (i = 2; i <= n; i++)
		rest = rest (i > 2 ? " | " : "") cells[i]
	put(inline(rest))
}

BEGIN {
	blank = 1
	named = body # a part of a page (body=1): no title, no NAME
	if (!body) {
		page = name
		printf ".TH %s %s \"%s\" \"%s\" \"%s\"\n", name, section, date, source, manual
		print ".nh"
		print ".ad l"
	}
}

# Inside a fence: as written.
code == 2 {
	if ($0 ~ /^```/) {
		print ".fi"
		print ".RE"
		code = 0
		blank = 0
		next
	}
	put(esc($0))
	next
}

/^<!--.*-->$/ {
	next
}

/^```/ {
	close_nest()
	start_code()
	code = 2
	next
}

# An indented block after a blank line (not a list item): as written.
code == 1 && /^    / {
	line = $0
	sub(/^    /, "", line)
	put(esc(line))
	next
}
code == 1 && /^[ \t]*$/ {
	pending_blank_in_code = 1
	next
}
code == 1 {
	end_block()
	blank = pending_blank_in_code
	pending_blank_in_code = 0
}

/^[ \t]*$/ {
	blank = 1
	incode = 0
	next
}

/^---+[ ]*$/ || /^===+[ ]*$/ {
	blank = 1
	next
}

/^##?#? / {
	level = index($0, " ") - 1
	text = substr($0, level + 2)
	heading(level, text)
	blank = 1
	next
}

blank && /^    / && $0 !~ /^ +([-*]|[0-9]+\.) / {
	close_nest()
	inlist = 0
	start_code()
	line = $0
	sub(/^    /, "", line)
	put(esc(line))
	blank = 0
	next
}

/^\|/ {
	close_nest()
	table_row($0)
	blank = 0
	next
}

# A list item: '- ' or '1. ' at the left, or nested by two or more spaces.
/^ *([-*]|[0-9]+\.) / {
	match($0, /^ */)
	indent = RLENGTH
	line = substr($0, indent + 1)
	bullet = line
	sub(/ .*/, "", bullet)
	line = substr(line, length(bullet) + 2)
	sub(/^ +/, "", line)
	if (indent >= 2 && inlist) {
		if (!nested) {
			print ".RS 4"
			nested = 1
		}
	} else
		close_nest()
	print ".IP " (bullet ~ /^[0-9]/ ? bullet : "\\(bu") " " (bullet ~ /^[0-9]/ ? 4 : 2)
	put(inline(line))
	inlist = 1
	blank = 0
	next
}

{
	line = $0
	if (blank) {
		if (!inlist || line !~ /^ /) {
			close_nest()
			inlist = 0
			print ".PP"
		} else
			print ".IP"
	}
	sub(/^ +/, "", line)
	put(inline(line))
	blank = 0
}

END {
	end_block()
	close_nest()
}
