#!/usr/bin/env python3
"""Makes a large real-like Kineto trace from a small real capture (fixtures/real):
its events repeated COPIES times, each copy shifted in time by the capture's span
and its ids (External id, correlation, flow id, Ev Idx) offset, written in
Kineto's pretty layout. Metadata, instant and Trace events are written once.
For measuring what real traces cost at scale (bench/run_bench.sh --traces DIR).

usage: replicate_trace.py IN.json[.gz] OUT.json COPIES"""
import gzip, json, sys

src, out, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
raw = (gzip.open if src.endswith('.gz') else open)(src, 'rb').read()
doc = json.loads(raw)
events = doc['traceEvents']
xs = [e for e in events if e.get('ph') == 'X' and isinstance(e.get('ts'), (int, float))]
t0 = min(e['ts'] for e in xs)
t1 = max(e['ts'] + e.get('dur', 0) for e in xs)
period = (t1 - t0) + 1000.0
ID_KEYS = ('External id', 'correlation', 'Ev Idx', 'Python id', 'Python parent id')
max_id = 0
for e in events:
    a = e.get('args', {})
    for k in ID_KEYS:
        if isinstance(a.get(k), int): max_id = max(max_id, a[k])
    if isinstance(e.get('id'), int): max_id = max(max_id, e['id'])
id_step = max_id + 1
def written_once(e):
    return e.get('ph') in ('M', 'i') or e.get('cat') == 'Trace'

once = [e for e in events if written_once(e)]
repeat = [e for e in events if not written_once(e)]

def num(v):
    if isinstance(v, float): return '%.3f' % v
    return json.dumps(v)

def render(e):
    head = ', '.join('%s: %s' % (json.dumps(k), json.dumps(e[k]))
                     for k in ('ph', 'cat', 'name', 'pid', 'tid', 'id', 'bp') if k in e)
    rest = [k for k in e if k not in ('ph', 'cat', 'name', 'pid', 'tid', 'id', 'bp', 'ts', 'dur', 'args')]
    second = ', '.join('%s: %s' % (json.dumps(k), num(e[k])) for k in ('ts', 'dur') if k in e)
    lines = ['  {', '    ' + head + (',' if second or rest or 'args' in e else '')]
    if second: lines.append('    ' + second + (',' if rest or 'args' in e else ''))
    for i, k in enumerate(rest):
        lines.append('    %s: %s%s' % (json.dumps(k), json.dumps(e[k]), ',' if i + 1 < len(rest) or 'args' in e else ''))
    if 'args' in e:
        a = e['args']
        if a:
            lines.append('    "args": {')
            lines.append('      ' + ','.join('%s: %s' % (json.dumps(k, ensure_ascii=False), json.dumps(v, ensure_ascii=False))
                                         for k, v in a.items()))
            lines.append('    }')
        else:
            lines.append('    "args": {}')
    lines.append('  }')
    return '\n'.join(lines)

def shifted(e, k):
    e = dict(e)
    if isinstance(e.get('ts'), (int, float)):
        e['ts'] = round(float(e['ts']) + k * period, 3)
    if isinstance(e.get('id'), int): e['id'] += k * id_step
    if 'args' in e:
        a = dict(e['args'])
        for key in ID_KEYS:
            if isinstance(a.get(key), int) and a[key] > 0: a[key] += k * id_step
        e['args'] = a
    return e

with open(out, 'w') as f:
    f.write('{\n')
    for key, value in doc.items():
        if key == 'traceEvents': continue
        f.write('  %s: %s,\n' % (json.dumps(key), json.dumps(value)))
    f.write('  "traceEvents": [\n')
    first = True
    for k in range(copies):
        for e in repeat:
            f.write(('' if first else ',\n') + render(shifted(e, k)))
            first = False
    for e in once:
        f.write(',\n' + render(e))
    f.write('\n  ]\n}\n')
