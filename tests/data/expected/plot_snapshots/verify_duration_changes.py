# Usage: /usr/bin/python3 verify_duration_changes.py OLD_DIR NEW_DIR (two trees written by make_snapshots.sh).
# Every difference between two snapshot trees' SVGs must be a duration label: the same <text> elements in the same
# order, differing only in text that is a duration; the svg lines apart from <text> content may differ only in x/
# positions of those texts. Prints each changed text pair; exits 1 on any other change.
import re, sys, os, html
old, new = sys.argv[1], sys.argv[2]
DUR = r'-?\d+(?:\.\d+)? (?:ns|µs|ms|s)'
durre = re.compile(DUR)
bad = 0; elided = [0]; pairs = set(); files = 0
for root, _, names in os.walk(new):
    for n in names:
        if not n.endswith('.svg'): continue
        a = os.path.join(old, os.path.relpath(root, new), n); b = os.path.join(root, n)
        if not os.path.exists(a): continue
        A = open(a, encoding='utf-8').read(); B = open(b, encoding='utf-8').read()
        if A == B: continue
        files += 1
        ta = re.findall(r'<text[^>]*>(.*?)</text>', A, re.S); tb = re.findall(r'<text[^>]*>(.*?)</text>', B, re.S)
        if len(ta) != len(tb):
            # labels dropped or added where they no longer fit: all of them durations
            import collections
            ca = collections.Counter(durre.sub('D', html.unescape(t)) for t in ta)
            cb = collections.Counter(durre.sub('D', html.unescape(t)) for t in tb)
            extra = list((ca - cb).elements()) + list((cb - ca).elements())
            nond = [t for t in extra if t.strip() != 'D']
            print('text count differs', b, len(ta), len(tb), 'non-duration texts among the differences:', nond[:6])
            if nond: bad += 1
            continue
        for x, y in zip(ta, tb):
            if x == y: continue
            # the texts must be equal once every duration is replaced by a placeholder
            ux, uy = html.unescape(x), html.unescape(y)
            if '…' in ux and '…' in uy and durre.sub('D', ux) != durre.sub('D', uy):
                # the same name elided to another width: each side's kept head and tail agree with the other's
                # the same name elided to another width: some cell of the plot's CSV holds every kept piece of
                # both, in order
                csvp = b[:-4] + '.csv'
                cells = set(re.split(r'[,\n]', open(csvp, encoding='utf-8').read())) if os.path.exists(csvp) else set()
                import csv as _csv
                if os.path.exists(csvp):
                    cells = {c for row in _csv.reader(open(csvp, encoding='utf-8')) for c in row}
                def fits(text, name):
                    pos = 0
                    for seg in text.split('…'):
                        k = name.find(seg, pos)
                        if k < 0: return False
                        pos = k + len(seg)
                    return True
                if any(fits(ux, c) and fits(uy, c) for c in cells):
                    elided[0] += 1; continue
            if durre.sub('D', ux) != durre.sub('D', uy):
                print('non-duration change', b, repr(x), repr(y)); bad += 1
            else:
                pairs.add((html.unescape(x), html.unescape(y)))
        # outside the text contents, only attributes of <text> elements (x, y, width of labels) may change
        sa = re.sub(r'<text[^>]*>.*?</text>', 'T', A, flags=re.S); sb = re.sub(r'<text[^>]*>.*?</text>', 'T', B, flags=re.S)
        if sa != sb:
            la, lb = sa.splitlines(), sb.splitlines()
            diff = [(p, q) for p, q in zip(la, lb) if p != q]
            # geometry moved by the new label widths; the <desc> and every other line must be unchanged
            other = [(p, q) for p, q in diff if not re.match(r'<(polyline|rect|path|g|image|polygon|line|circle|ellipse)\b', p.strip())]
            if other: print('non-geometry change', b, other[:2]); bad += 1
print(files, 'changed svgs;', len(pairs), 'distinct changed duration texts;', elided[0], 'names elided to another width;', bad, 'other changes')
for p in sorted(pairs)[:15]: print('  ', p)
sys.exit(1 if bad else 0)
