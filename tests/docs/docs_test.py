#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Keeps --help, the man pages and the shell completions in agreement.

    docs_test.py options UNWPROF SRCDIR       option sets: help = man = bash = zsh = fish
    docs_test.py values UNWPROF SRCDIR        completed option values are accepted
    docs_test.py man SRCDIR [SCDOC]           the man pages build with scdoc
    docs_test.py reasons SRCDIR               unwprof-record(1) names every reason of
                                              bpf/abi.h's UNW_ERRORS and the runtimes'
    docs_test.py stats SRCDIR                 unwprof-record(1) names every key of
                                              --stats-json the lists of counts define
    docs_test.py bash UNWPROF SRCDIR          bash completion, driven for real
    docs_test.py zsh UNWPROF SRCDIR           zsh completion, driven in a pty
    docs_test.py fish UNWPROF SRCDIR          fish completion, driven by complete -C

Exit 0 on success, 1 on a mismatch, 77 (skip) when a shell or scdoc is not
installed, except under CI (CI set in the environment), where that fails.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
COMMANDS = ['record', 'report', 'dump-unwind', 'shards']
MAIN = 'unwprof'  # the options before the command
BASH_COMPLETION = '/usr/share/bash-completion/bash_completion'

failures = []


def fail(msg):
    failures.append(msg)
    print('FAIL: ' + msg)


def skip(what):
    if os.environ.get('CI'):
        print(f'FAIL: {what} is not installed, and CI must run this test')
        return 1
    print(f'SKIP: {what} is not installed')
    return SKIP


def finish():
    if failures:
        print(f'{len(failures)} mismatch(es)')
        return 1
    print('ok')
    return 0


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, **kw)


# ---- where the options are listed ----

def help_text(unwprof, cmd):
    argv = [unwprof, '--help'] if cmd == MAIN else [unwprof, cmd, '--help']
    r = run(argv)
    if r.returncode != 0:
        fail(f'{" ".join(argv)} exited {r.returncode}')
    return r.stdout


def help_options(unwprof, cmd):
    """The option table of argp's --help: it ends with --version."""
    opts = set()
    for line in help_text(unwprof, cmd).splitlines():
        short = re.match(r'^  (-[A-Za-z?])(?:  | [A-Z])', line)  # "  -g   Accepted ..."
        if short:
            opts.add(short.group(1))
            continue
        m = re.match(r'^  (?:(-\S), )?(?:    )?(--[a-z][a-z0-9-]*)', line)
        if not m:
            continue
        opts.update(o for o in m.groups() if o)
        if m.group(2) == '--version':
            break
    return opts


def man_path(src, cmd):
    name = 'unwprof' if cmd == MAIN else 'unwprof-' + cmd
    return os.path.join(src, 'man', name + '.1.scd')


def man_options(src, cmd):
    """The options defined in the OPTIONS section: lines that begin with *-."""
    opts = set()
    section = None
    with open(man_path(src, cmd)) as f:
        for line in f:
            if line.startswith('# '):
                section = line[2:].strip()
                continue
            if section != 'OPTIONS' or not line.startswith('*-'):
                continue
            # "*-p*, *--pids*=_PID_": the names before the value
            head = line.split('=')[0]
            opts.update(re.findall(r'\*(-[^*\s]|--[a-z][a-z0-9-]*)\*', head))
    return opts


def zsh_options(src, cmd):
    with open(os.path.join(src, 'completions', '_unwprof')) as f:
        text = f.read()
    common = re.search(r'local -a _unwprof_common=\((.*?)\n\t\)', text, re.S).group(1)
    if cmd == MAIN:
        body = common
    else:
        m = re.search(r'^_unwprof_' + re.escape(cmd) + r'\(\) \{\n(.*?)^\}', text, re.S | re.M)
        if not m:
            fail(f'_unwprof: no function _unwprof_{cmd}')
            return set()
        body = m.group(1)
        if '$_unwprof_common' in body:
            body += common
    body = re.sub(r'\[[^\]]*\]', '', body)  # descriptions
    body = body.replace('_arguments -s -S :', '').replace('_sequence -s ,', '')
    body = body.replace('-\\?', '-?')
    return set(re.findall(r'(?<![\w-])(--[a-z][a-z0-9-]*|-[A-Za-z?])(?![\w])', body))


def fish_options(src, cmd):
    """complete lines: those without -n are common, -n $c belong to the last set c."""
    opts = {}
    current = None
    with open(os.path.join(src, 'completions', 'unwprof.fish')) as f:
        text = f.read().replace('\\\n', ' ')
    for line in text.splitlines():
        m = re.match(r"set -l c '__unwprof_command_is (\S+)'", line)
        if m:
            current = m.group(1)
            continue
        if not line.startswith('complete -c unwprof'):
            continue
        if ' -n $c ' in line:
            owner = current
        elif ' -n ' in line:
            continue  # the command names
        else:
            owner = MAIN
        found = set()
        for s in re.findall(r" -s '?([^\s']+)'?", line):
            found.add('-' + s)
        for name in re.findall(r' -l ([a-z][a-z0-9-]*)', line):
            found.add('--' + name)
        opts.setdefault(owner, set()).update(found)
    common = opts.get(MAIN, set())
    return common | opts.get(cmd, set()) if cmd != MAIN else common


# ---- driving the shells ----

def bash_complete(src, words, env=None):
    """COMPREPLY for the words, the last one being completed, as bash sets it up."""
    quoted = ' '.join("'" + w.replace("'", "'\\''") + "'" for w in words)
    script = ''
    if os.path.exists(BASH_COMPLETION):
        script += f'source {BASH_COMPLETION}\n'
    script += f'''source {os.path.join(src, 'completions', 'unwprof.bash')}
COMP_WORDS=({quoted})
COMP_CWORD={len(words) - 1}
COMP_LINE="${{COMP_WORDS[*]}}"
COMP_POINT=${{#COMP_LINE}}
_unwprof
printf '%s\\n' "${{COMPREPLY[@]}}"
'''
    r = run(['bash', '-c', script], env=env)
    if r.returncode != 0:
        fail(f'bash completion of {words}: exit {r.returncode}: {r.stderr.strip()}')
    return [line for line in r.stdout.splitlines() if line]


def bash_options(src, cmd):
    words = ['unwprof', '-'] if cmd == MAIN else ['unwprof', cmd, '-']
    return set(bash_complete(src, words))


# zsh echoes the line once compinit is done, then lists what Tab completes:
# the transcript ends when nothing more came for 1 s after the echo, however
# long a loaded machine takes to get there (45 s at most).
ZSH_DRIVER = r'''
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PS1='> '; fpath=($COMPDIR \$fpath); autoload -U compinit; compinit -u -D; \
zstyle ':completion:*' menu no; LISTMAX=10000; unsetopt zle_bracketed_paste"
zpty -w -n z "$1"$'\t'
local out= chunk i quiet=0
for i in {1..450}; do
	if zpty -rt z chunk 2>/dev/null; then
		out+=$chunk
		quiet=0
	else
		(( quiet++ ))
	fi
	[[ $out == *"$1"* ]] && (( quiet >= 10 )) && break
	sleep 0.1
done
print -r -- "$out"
zpty -d z
'''


def zsh_complete(src, line):
    """The terminal output of a Tab after line, without escape sequences."""
    with tempfile.NamedTemporaryFile('w', suffix='.zsh', delete=False) as f:
        f.write(ZSH_DRIVER)
    try:
        env = dict(os.environ, COMPDIR=os.path.join(src, 'completions'))
        r = run(['zsh', '-f', f.name, line], env=env)
    finally:
        os.unlink(f.name)
    out = re.sub(r'\x1b\[[0-9;?]*[A-Za-z]', '', r.stdout)
    return out.replace('\r', '\n')


def fish_complete(src, line):
    script = f"source {os.path.join(src, 'completions', 'unwprof.fish')}; complete -C '{line}'"
    r = run(['fish', '--no-config', '-c', script])
    if r.returncode != 0:
        fail(f'fish completion of {line!r}: exit {r.returncode}: {r.stderr.strip()}')
    return [line.split('\t') for line in r.stdout.splitlines() if line]


def compare(what, expected, got):
    if expected != got:
        missing = sorted(expected - got)
        extra = sorted(got - expected)
        fail(f'{what}: missing {missing}, not in --help {extra}')


# ---- the tests ----

def test_options(unwprof, src):
    for cmd in [MAIN] + COMMANDS:
        want = help_options(unwprof, cmd)
        if not want:
            fail(f'{cmd}: no option found in --help')
            continue
        name = 'unwprof' if cmd == MAIN else 'unwprof ' + cmd
        before = len(failures)
        compare(f'{name}: {os.path.basename(man_path(src, cmd))}', want, man_options(src, cmd))
        compare(f'{name}: unwprof.bash', want, bash_options(src, cmd))
        compare(f'{name}: _unwprof', want, zsh_options(src, cmd))
        compare(f'{name}: unwprof.fish', want, fish_options(src, cmd))
        if len(failures) == before:
            print(f'{name}: {len(want)} options agree')
    # Every command of `unwprof --help` has a man page and says so in its help.
    listed = re.findall(r'^  (\S+)\s', help_text(unwprof, MAIN).split('Commands:')[1], re.M)
    if sorted(c for c in listed if c != 'help') != sorted(COMMANDS):
        fail(f'unwprof --help lists {listed}, the docs cover {COMMANDS}')
    for cmd in COMMANDS:
        if f'unwprof-{cmd}(1)' not in help_text(unwprof, cmd):
            fail(f'unwprof {cmd} --help does not point to unwprof-{cmd}(1)')
        with open(man_path(src, MAIN)) as f:
            if f'*unwprof-{cmd}*(1)' not in f.read():
                fail(f'unwprof.1.scd does not point to unwprof-{cmd}(1)')
    return finish()


# Option values the completions offer, each of which the command must accept.
VALUES = {
    ('record', '--format'): ['folded', 'pprof', 'svg'],
    ('report', '--sort'): ['self', 'total'],
}


def test_values(unwprof, src):
    for (cmd, opt), values in VALUES.items():
        got = bash_complete(src, ['unwprof', cmd, opt, ''])
        if sorted(got) != sorted(values):
            fail(f'bash: unwprof {cmd} {opt}: offers {got}, expected {values}')
        # argp handles options in order: a bad value fails before --help exits 0.
        for v in values:
            r = run([unwprof, cmd, f'{opt}={v}', '--help'])
            if r.returncode != 0:
                fail(f'unwprof {cmd} {opt}={v}: exit {r.returncode}: {r.stderr.strip()}')
        r = run([unwprof, cmd, f'{opt}=no-such-value', '--help'])
        if r.returncode != 64:
            fail(f'unwprof {cmd} {opt}=no-such-value: exit {r.returncode}, expected 64')
        with open(os.path.join(src, 'completions', 'unwprof.fish')) as f:
            fish = f.read()
        if not re.search(r'-l ' + opt[2:] + r" -x -a '" + ' '.join(values) + "'", fish):
            fail(f'unwprof.fish: {cmd} {opt} does not offer {values}')
        with open(os.path.join(src, 'completions', '_unwprof')) as f:
            if f"({' '.join(values)})" not in f.read():
                fail(f'_unwprof: {cmd} {opt} does not offer {values}')
    return finish()


def test_man(src, scdoc):
    if not scdoc:
        scdoc = shutil.which('scdoc')
    if not scdoc:
        return skip('scdoc')
    for cmd in [MAIN] + COMMANDS:
        path = man_path(src, cmd)
        with open(path) as f:
            r = subprocess.run([scdoc], stdin=f, capture_output=True, text=True, timeout=60)
        if r.returncode != 0 or not r.stdout.startswith('.\\"'):
            fail(f'{path}: scdoc: exit {r.returncode}: {r.stderr.strip()}')
            continue
        # An unbalanced _ or * shows up as a literal one in the text.
        for sec in ('NAME', 'SYNOPSIS', 'DESCRIPTION', 'OPTIONS', 'EXIT STATUS', 'SEE ALSO'):
            if f'.SH {sec}' not in r.stdout:
                fail(f'{path}: no {sec} section')
        print(f'{os.path.basename(path)}: {len(r.stdout)} bytes of roff')
    return finish()


def reason_names(src):
    """The reasons a walk counts: X(ID, "name", ...) in bpf/abi.h's UNW_ERRORS, then in
    each runtime's list (UNW_NAME_ERRORS of bpf/unwind_NAME.h) that bpf/runtimes.h's
    UNW_RUNTIMES_ERRORS joins; None when a list is missing."""
    def read(name):
        with open(os.path.join(src, 'bpf', name)) as f:
            return f.read()

    def reasons(header, macro):
        block = re.search(r'#define ' + macro + r'\(X\)(.*?)\n\n', header, re.S)
        return re.findall(r'X\(\w+,\s*"([a-z0-9-]+)"', block.group(1)) if block else None

    names = reasons(read('abi.h'), 'UNW_ERRORS')
    joined = re.search(r'#define UNW_RUNTIMES_ERRORS\(X\)((?:.*\\\n)*.*)', read('runtimes.h'))
    if names is None or not joined:
        return None
    for macro in re.findall(r'(UNW_(\w+)_ERRORS)\(X\)', joined.group(1)):
        runtime = reasons(read(f'unwind_{macro[1].lower()}.h'), macro[0])
        if runtime is None:
            return None
        names += runtime
    return names


def test_reasons(src):
    """Each reason a walk counts (reason_names) is explained in the man page."""
    names = reason_names(src)
    if not names:
        fail('bpf/abi.h, bpf/runtimes.h or a runtime\'s header: a list of reasons is missing')
        return finish()
    with open(man_path(src, 'record')) as f:
        man = f.read()
    for name in names:
        if f'*{name}*' not in man:
            fail(f'{man_path(src, "record")} does not explain the reason {name}')
    print(f'{len(names)} reasons')
    return finish()


def stat_keys(src):
    """The --stats-json keys of the lists of counts: bpf/abi.h's UNW_STATS and UNW_OFF_STATS,
    X(ID, FIELD, "KEY", ...), and core/session/session.h's SESSION_STATS, X(FIELD, "KEY",
    ...); a row without a key is not in the file."""
    keys = []
    for header, macro in (('bpf/abi.h', 'UNW_STATS'), ('bpf/abi.h', 'UNW_OFF_STATS'),
                          ('core/session/session.h', 'SESSION_STATS')):
        with open(os.path.join(src, header)) as f:
            text = f.read()
        block = re.search(r'#define ' + macro + r'\(X\)((?:.*\\\n)*.*)', text)
        if not block:
            return None
        keys += [k for k in re.findall(r'X\(\s*(?:\w+,\s*)?\w+,\s*"([^"]*)"',
                                       block.group(1).replace('\\\n', ' ')) if k]
    return keys


def test_stats(src):
    """Each key of --stats-json the lists of counts define is explained in the man page."""
    keys = stat_keys(src)
    if not keys:
        fail('bpf/abi.h or core/session/session.h: a list of counts is missing')
        return finish()
    with open(man_path(src, 'record')) as f:
        man = f.read()
    for key in keys:
        if f'*{key}*' not in man:
            fail(f'{man_path(src, "record")} does not explain the --stats-json key {key}')
    print(f'{len(keys)} keys')
    return finish()


def sleeper():
    return subprocess.Popen(['sleep', '60'])


def test_bash(unwprof, src):
    if not shutil.which('bash'):
        return skip('bash')
    if not os.path.exists(BASH_COMPLETION):
        print(f'note: {BASH_COMPLETION} is missing: testing without bash-completion')
    checks = [
        (['unwprof', 'rec'], ['record']),
        (['unwprof', 'd'], ['dump-unwind']),
        (['unwprof', 'help', 'sh'], ['shards']),
        (['unwprof', '-v', 'report', '--so'], ['--sort']),
        (['unwprof', 'record', '--format', ''], ['folded', 'pprof', 'svg']),
        (['unwprof', 'record', '--format', '=', 'p'], ['pprof']),
        (['unwprof', 'report', '--sort', ''], ['self', 'total']),
        (['unwprof', 'record', '-F', '999', '--st'], ['--stats-json']),
        (['unwprof', 'dump-unwind', '--no-d'], ['--no-debuginfo']),
    ]
    for words, want in checks:
        got = bash_complete(src, words)
        if got != want:
            fail(f'bash: {" ".join(words)!r}: got {got}, expected {want}')

    # Files for the options that take one and for FILE arguments.
    with tempfile.TemporaryDirectory() as d:
        for name in ('app.pb.gz', 'app.folded'):
            open(os.path.join(d, name), 'w').close()
        for words in (['unwprof', 'report', '-i'], ['unwprof', 'report', '--diff'],
                      ['unwprof', 'record', '-o'], ['unwprof', 'record', '--stats-json'],
                      ['unwprof', 'dump-unwind', '--debug-file'], ['unwprof', 'dump-unwind'],
                      ['unwprof', 'shards']):
            got = bash_complete(src, words + [os.path.join(d, 'app.p')])
            if got != [os.path.join(d, 'app.pb.gz')]:
                fail(f'bash: {" ".join(words)} FILE: got {got}')

    # Processes: "PID (comm)" when several match, the bare pid when one does.
    p = sleeper()
    try:
        pid = str(p.pid)
        for opt, cmd in (('-p', 'record'), ('--pids', 'shards')):
            got = bash_complete(src, ['unwprof', cmd, opt, ''])
            if f'{pid} (sleep)' not in got:
                fail(f'bash: unwprof {cmd} {opt}: "{pid} (sleep)" not among {len(got)} offered')
            got = bash_complete(src, ['unwprof', cmd, opt, pid])
            if got != [pid]:
                fail(f'bash: unwprof {cmd} {opt} {pid}: got {got}')
        got = bash_complete(src, ['unwprof', 'record', '-p', '1,' + pid])
        if got != ['1,' + pid]:
            fail(f'bash: unwprof record -p 1,{pid}: got {got}')
    finally:
        p.kill()
        p.wait()

    r = run(['bash', '-c', f"source {os.path.join(src, 'completions', 'unwprof.bash')}; "
             'complete -p unwprof'])
    if r.stdout.strip() != 'complete -F _unwprof unwprof':
        fail(f'bash: complete -p unwprof: {r.stdout.strip()!r} {r.stderr.strip()}')
    return finish()


def test_zsh(unwprof, src):
    if not shutil.which('zsh'):
        return skip('zsh')
    for cmd in COMMANDS:
        out = zsh_complete(src, f'unwprof {cmd} -')
        # The listing after the echoed command line.
        listing = out.split(f'unwprof {cmd} -', 1)[-1]
        got = set(re.findall(r'(?<![\w-])(--[a-z][a-z0-9-]*|-[A-Za-z?])(?=\s)', listing))
        compare(f'zsh: unwprof {cmd} -<Tab>', help_options(unwprof, cmd), got)
    out = zsh_complete(src, 'unwprof ')
    for cmd in COMMANDS + ['help']:
        if not re.search(r'^' + re.escape(cmd) + r'\s+-- ', out, re.M):
            fail(f'zsh: unwprof <Tab>: {cmd} not listed')
    out = zsh_complete(src, 'unwprof record --format=')
    for v in ('folded', 'pprof', 'svg'):
        if v not in out:
            fail(f'zsh: unwprof record --format=<Tab>: {v} not offered')
    p = sleeper()
    try:
        out = zsh_complete(src, f'unwprof record -p {p.pid}')
        if not re.search(rf'unwprof record -p {p.pid} ', out):
            fail(f'zsh: unwprof record -p {p.pid}<Tab> was not completed: {out[-200:]!r}')
    finally:
        p.kill()
        p.wait()
    return finish()


def test_fish(unwprof, src):
    if not shutil.which('fish'):
        return skip('fish')
    for cmd in COMMANDS:
        got = {c[0] for c in fish_complete(src, f'unwprof {cmd} -')}
        compare(f'fish: unwprof {cmd} -<Tab>', help_options(unwprof, cmd), got)
    got = {c[0] for c in fish_complete(src, 'unwprof ')}
    if got != set(COMMANDS + ['help']):
        fail(f'fish: unwprof <Tab>: {sorted(got)}')
    got = [c[0] for c in fish_complete(src, 'unwprof record --format ')]
    if got != ['folded', 'pprof', 'svg']:
        fail(f'fish: unwprof record --format <Tab>: {got}')
    p = sleeper()
    try:
        got = fish_complete(src, f'unwprof shards -p 1,{p.pid}')
        if [f'1,{p.pid}', 'sleep'] not in got:
            fail(f'fish: unwprof shards -p 1,{p.pid}<Tab>: {got}')
    finally:
        p.kill()
        p.wait()
    return finish()


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 1
    test = argv[1]
    if test == 'man':
        return test_man(argv[2], argv[3] if len(argv) > 3 else '')
    if test == 'reasons' and len(argv) == 3:
        return test_reasons(argv[2])
    if test == 'stats' and len(argv) == 3:
        return test_stats(argv[2])
    tests = {'options': test_options, 'values': test_values, 'bash': test_bash,
             'zsh': test_zsh, 'fish': test_fish}
    if test not in tests or len(argv) != 4:
        print(__doc__)
        return 1
    return tests[test](argv[2], argv[3])


if __name__ == '__main__':
    sys.exit(main(sys.argv))
