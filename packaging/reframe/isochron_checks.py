# ReFrame checks shipped with isochron (issue 39): a test library a site runs with its own ReFrame
# configuration, like the OSU checks of ReFrame's tutorial (examples/tutorial/mpi/osu.py), with one
# difference: no number is scraped from text. The drivers write JSON Lines (--jsonl), every record is
# validated against the published schema (python/src/isochron/results-1.schema.json, as
# tests/cli/check_schema.sh validates), and every performance variable is a field of a record: per
# point the median, the bounds of its confidence interval, the global clock's error bound and its kind
# (statistical or hard), the clock's true error where the run had truth; per clock check the sync's
# true error against its stated bound. Sanity: the records validate, the run ended complete, every
# point has valid repetitions and a median, every point that moved data had its received data checked
# ("validated"), and where there is truth the stated bound covers the true error (within the truth's
# own read resolution, 20 ns, as tests/cluster/check_isochron.sh allows).
#
# The build is a fixture: isochron's CMake build (ReFrame's CMake build system) of the checkout this
# file ships in (variable `source`), or an isochron already built or installed (`bindir`: the
# drivers' directory; the build is then a check that they are there). References per system are a
# parameter: a JSON file (`references_file`, default references.json beside this file) keyed
# "system:partition" (or "*"), then variable name, then [reference, lower, upper] as ReFrame's
# relative thresholds. ReFrame 4.10 (PyPI reframe-hpc); config.py beside this file describes the two
# systems isochron runs them on (local, and the namespace cluster through Slurm).
# References: ReFrame 4.10 documentation (regression test API, build systems, fixtures, performance
# variables); docs/references.md has no paper for this file: it is packaging.
import json
import os

import reframe as rfm
import reframe.utility.typecheck as typ
from reframe.core.builtins import fixture, parameter, run_after, run_before, sanity_function, variable
from reframe.core.exceptions import SanityError
import reframe.utility.sanity as sn

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))        # the checkout holding packaging/reframe/
TRUTH_RES_S = 20e-9     # the truth is read by bracketing clock reads: errors below this are its resolution


def within_bound(where, true_s, bound_s, bound_kind):
    '''SanityError unless a true clock error lies within the stated bound (to the truth's resolution).'''
    if not abs(true_s) <= bound_s + TRUTH_RES_S:
        raise SanityError(f'{where}: true clock error {true_s:.3g} s beyond the stated {bound_kind} bound {bound_s:.3g} s')


class isochron_build(rfm.CompileOnlyRegressionTest):
    '''isochron's drivers: built from source with CMake, or an existing build/installation (bindir).'''

    source = variable(str, value=SOURCE)
    bindir = variable(str, value='')
    cmake_options = variable(typ.List[str], value=['-DCMAKE_BUILD_TYPE=Release', '-DBUILD_TESTING=OFF'])
    valid_systems = ['*']
    valid_prog_environs = ['*']
    sourcesdir = None
    build_locally = True
    drivers = ('isochron-clock', 'isochron-bench')

    @run_before('compile')
    def choose_build(self):
        if self.bindir:
            self.build_system = 'CustomBuild'
            self.build_system.commands = ['ls -l ' + ' '.join(os.path.join(self.bindir, d) for d in self.drivers)]
        else:
            self.build_system = 'CMake'
            self.build_system.configuredir = self.source
            self.build_system.builddir = 'build'
            self.build_system.flags_from_environ = False
            self.build_system.config_opts = self.cmake_options
            self.build_system.max_concurrency = 2
            self.build_system.build_opts = list(self.drivers)      # only the drivers (cmake --build -- TARGETS)

    def driver(self, name):
        return os.path.join(self.bindir or os.path.join(self.stagedir, 'build'), name)

    @sanity_function
    def drivers_exist(self):
        return sn.all([sn.assert_true(os.access(self.driver(d), os.X_OK), msg=f'{self.driver(d)} is not an executable')
                       for d in self.drivers])


class isochron_run(rfm.RunOnlyRegressionTest):
    '''One driver run at `num_tasks` ranks writing result.jsonl; sanity and performance from its records.'''

    isochron = fixture(isochron_build, scope='environment')
    schema = variable(str, value=os.path.join(SOURCE, 'python', 'src', 'isochron', 'results-1.schema.json'))
    references_file = variable(str, value=os.path.join(HERE, 'references.json'))
    timer = variable(str, value='')                   # e.g. monotonic: the timer with truth across cluster nodes
    ranks = variable(int, value=2)
    ranks_per_node = variable(int, value=0)           # 0: the scheduler's choice
    valid_systems = ['*']
    valid_prog_environs = ['*']
    jsonl = 'result.jsonl'
    driver_name = ''
    tags = {'isochron'}
    maintainers = ['isochron']

    def driver_options(self):
        return []

    @run_after('setup')
    def set_command(self):
        self.num_tasks = self.ranks
        if self.ranks_per_node:
            self.num_tasks_per_node = self.ranks_per_node
        self.executable = self.isochron.driver(self.driver_name)
        self.executable_opts = self.driver_options() + (['--timer', self.timer] if self.timer else []) + ['--jsonl', self.jsonl]

    # -- the records ---------------------------------------------------------------------------
    def records(self):
        if getattr(self, '_records', None) is None:
            path = os.path.join(self.stagedir, self.jsonl)
            if not os.path.isfile(path):
                raise SanityError(f'{self.driver_name} wrote no {self.jsonl}')
            with open(path) as fh:
                self._records = [json.loads(line) for line in fh if line.strip()]
        return self._records

    def of_type(self, t):
        return [r for r in self.records() if r.get('type') == t]

    def check_schema(self):
        import jsonschema
        with open(self.schema) as fh:
            validator = jsonschema.Draft202012Validator(json.load(fh))
        recs = self.records()
        if not recs:
            raise SanityError(f'{self.jsonl} holds no records')
        for i, r in enumerate(recs):
            for e in validator.iter_errors(r):
                where = '.'.join(map(str, e.absolute_path)) or '(record)'
                raise SanityError(f'{self.jsonl}:{i + 1}: {r.get("type")} record, {where}: {e.message[:200]}')
        end = recs[-1]
        if end.get('type') != 'end' or not end.get('complete'):
            raise SanityError(f'the run did not end complete (last record: {json.dumps(end)[:200]})')
        return len(recs)

    def sanity_records(self):
        '''further checks of the records; returns a one-line summary'''
        return ''

    @sanity_function
    def validate(self):
        n = self.check_schema()
        self.sanity_summary = f'{n} records valid against {os.path.basename(self.schema)}; ' + self.sanity_records()
        return sn.assert_true(True)

    # -- performance ---------------------------------------------------------------------------
    def perf_values(self):
        '''{variable: (value, unit)}'''
        return {}

    def references(self):
        if not self.references_file or not os.path.isfile(self.references_file):
            return {}
        with open(self.references_file) as fh:
            table = json.load(fh)
        part = self.current_partition.fullname
        return {key: {var: tuple(ref) for var, ref in refs.items()}
                for key, refs in table.items() if key in (part, '*', self.current_system.name)}

    @run_before('performance')
    def set_perf_variables(self):
        values = self.perf_values()
        self.perf_variables = {name: sn.make_performance_function(sn.defer(v), unit)
                               for name, (v, unit) in values.items()}
        refs = self.references()
        units = {name: unit for name, (_, unit) in values.items()}
        self.reference = {key: {var: (*ref[:3], units.get(var, ref[3] if len(ref) > 3 else None))
                                for var, ref in r.items() if var in units} for key, r in refs.items()}


@rfm.simple_test
class isochron_clock_check(isochron_run):
    '''isochron-clock: the global clock's true error against its stated bound, right after the sync and later.'''

    descr = 'isochron-clock: sync accuracy against truth, with the stated bound'
    driver_name = 'isochron-clock'
    waits = variable(str, value='0,0.5')

    def driver_options(self):
        return ['--wait', self.waits]

    def sanity_records(self):
        acc = self.of_type('accuracy')
        if len(acc) != self.ranks * len(self.waits.split(',')):
            raise SanityError(f'{len(acc)} accuracy records, expected {self.ranks} ranks x {len(self.waits.split(","))} waits')
        truth = [r for r in acc if r.get('true_offset_s') is not None]
        for r in truth:
            within_bound(f'rank {r["rank"]} @{r["wait_s"]} s', r['true_offset_s'], r['bound_s'], r['bound_kind'])
        return f'{len(acc)} checks, {len(truth)} with truth, each within its stated bound'

    def perf_values(self):
        out = {}
        for s in self.of_type('summary'):
            w = f'wait{s["wait_s"]:g}s'
            out[f'{w}_bound'] = (s['max_bound_s'], 's')
            out[f'{w}_bound_hard'] = (1.0 if s.get('bound_kind') == 'hard' else 0.0, 'hard=1')
            if s.get('max_abs_true_offset_s') is not None:
                out[f'{w}_true_error'] = (s['max_abs_true_offset_s'], 's')
            out[f'{w}_sync_duration'] = (s['duration_s'], 's')
        return out


@rfm.simple_test
class isochron_bench_check(isochron_run):
    '''isochron-bench: a small sweep of collectives, point-to-point or one-sided operations.'''

    descr = 'isochron-bench: per point median, CI, clock bound (and truth) from the JSON Lines'
    driver_name = 'isochron-bench'
    kind = parameter(['collectives', 'p2p', 'rma'])
    sweeps = variable(typ.Dict[str, str], value={
        'collectives': 'allreduce,bcast,barrier:8,1K',
        'p2p': 'pingpong,pingpong_isend:8,1K,64K',
        'rma': 'put_fence,get_lockall:8,1K',
    })
    max_reps = variable(int, value=100)
    budget_s = variable(float, value=1.0)

    def driver_options(self):
        ops, sizes = self.sweeps[self.kind].split(':')
        return ['--ops', ops, '--sizes', sizes, '--max-reps', str(self.max_reps), '--budget', f'{self.budget_s:g}']

    def points(self):
        return self.of_type('point')

    def sanity_records(self):
        ops, sizes = self.sweeps[self.kind].split(':')
        pts = self.points()
        if len(pts) != len(ops.split(',')) * len(sizes.split(',')):
            raise SanityError(f'{len(pts)} points, expected {len(ops.split(","))} operations x {len(sizes.split(","))} sizes')
        truth = 0
        for p in pts:
            name = f'{p["op"]} {p["bytes"]} B'
            if not p.get('valid') or p.get('median_s') is None:
                raise SanityError(f'{name}: {p.get("valid")} valid of {p.get("reps")} repetitions, no median (stop: {p.get("stop")})')
            if p['bytes'] > 0 and p['family'] != 'barrier' and not p.get('validated'):
                raise SanityError(f'{name}: no repetition had its received data checked (validated 0)')
            if p.get('clock_bound_s') is None:
                raise SanityError(f'{name}: no clock bound stated')
            if p.get('clock_true_s') is not None:
                truth += 1
                within_bound(name, p['clock_true_s'], p['clock_bound_s'], p.get('clock_bound_kind'))
        return f'{len(pts)} points measured and validated, {truth} with truth within the stated clock bound'

    def perf_values(self):
        out = {}
        for p in self.points():
            key = f'{p["op"]}_{p["bytes"]}B'
            out[f'{key}_median'] = (p['median_s'], 's')
            if p.get('median_ci_lo_s') is not None:    # too few valid repetitions give no interval
                out[f'{key}_ci_lo'] = (p['median_ci_lo_s'], 's')
                out[f'{key}_ci_hi'] = (p['median_ci_hi_s'], 's')
            out[f'{key}_clock_bound'] = (p['clock_bound_s'], 's')
            out[f'{key}_clock_bound_hard'] = (1.0 if p.get('clock_bound_kind') == 'hard' else 0.0, 'hard=1')
            if p.get('clock_true_s') is not None:
                out[f'{key}_clock_true'] = (abs(p['clock_true_s']), 's')
        return out
