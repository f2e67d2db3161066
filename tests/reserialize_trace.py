#!/usr/bin/python3
"""Re-serializes one JSON trace in three layouts, every token kept verbatim, for the layout-independence test.

usage: reserialize_trace.py SOURCE OUTDIR
SOURCE is .json or .json.gz. Writes OUTDIR/minified.json (no whitespace), OUTDIR/indent2.json (as
json.dump(..., indent=2) lays it out) and OUTDIR/indent4_crlf.json (indent 4, CRLF line ends). Numbers are
written back exactly as they were written (their text is kept, never re-formatted through float or int), strings
as UTF-8 (ensure_ascii=False), members in their order, duplicates kept.
"""
import gzip
import json
import os
import sys


class Number:
    """A number token, kept as its text."""
    __slots__ = ('text',)

    def __init__(self, text):
        self.text = text


class Members(list):
    """An object's (key, value) pairs, in order."""


def read(path):
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt', encoding='utf-8') as f:
        text = f.read()
    return json.loads(text, parse_float=Number, parse_int=Number, parse_constant=Number,
                      object_pairs_hook=Members)


def write(value, out, indent, level=0):
    """Appends `value` to the list of strings `out`; indent None writes it minified."""
    if isinstance(value, Number):
        out.append(value.text)
    elif isinstance(value, str):
        out.append(json.dumps(value, ensure_ascii=False))
    elif value is True or value is False or value is None:
        out.append(json.dumps(value))
    elif isinstance(value, (Members, list)):
        is_object = isinstance(value, Members)
        opener, closer = ('{', '}') if is_object else ('[', ']')
        if not value:
            out.append(opener + closer)
            return
        out.append(opener)
        inner = '' if indent is None else '\n' + ' ' * (indent * (level + 1))
        for i, item in enumerate(value):
            if i:
                out.append(',')
            out.append(inner)
            if is_object:
                out.append(json.dumps(item[0], ensure_ascii=False))
                out.append(':' if indent is None else ': ')
                write(item[1], out, indent, level + 1)
            else:
                write(item, out, indent, level + 1)
        if indent is not None:
            out.append('\n' + ' ' * (indent * level))
        out.append(closer)
    else:
        raise TypeError(type(value))


def main():
    source, outdir = sys.argv[1], sys.argv[2]
    doc = read(source)
    os.makedirs(outdir, exist_ok=True)
    for name, indent, newline in (('minified.json', None, '\n'), ('indent2.json', 2, '\n'),
                                  ('indent4_crlf.json', 4, '\r\n')):
        parts = []
        write(doc, parts, indent)
        text = ''.join(parts).replace('\n', newline)
        with open(os.path.join(outdir, name), 'w', encoding='utf-8', newline='') as f:
            f.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
