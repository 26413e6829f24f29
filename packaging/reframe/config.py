# ReFrame configuration for running isochron's checks (isochron_checks.py) here: two systems.
#   isochron-local:default    this host: the local scheduler, Open MPI's mpirun as the launcher (as root and
#                             with more ranks than cores it needs the OMPI_* variables set below)
#   isochron-cluster:compute  the namespace cluster (tools/cluster up N --slurm): ReFrame's Slurm scheduler
#                             without accounting ("squeue": the cluster's slurm.conf has no accounting storage),
#                             the srun launcher. Its sbatch/squeue/scancel/srun are the wrappers in cluster-bin/
#                             (each runs `tools/cluster TOOL` inside node 0); put that directory first on PATH.
# Pick one with --system; the stage and output directories must be on a file system every node sees (the
# nodes have private /tmp: tools/test-reframe.sh uses BUILD/reframe). Sites write their own systems here.
import os

OMPI_ROOT_ENV = [['OMPI_ALLOW_RUN_AS_ROOT', '1'], ['OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', '1'],
                 ['OMPI_MCA_rmaps_base_oversubscribe', '1'], ['OMPI_MCA_memory', '^patcher']]

site_configuration = {
    'systems': [
        {
            'name': 'isochron-local',
            'descr': 'this host, ranks started by mpirun',
            'hostnames': ['.*'],
            'modules_system': 'nomod',
            'partitions': [{
                'name': 'default',
                'scheduler': 'local',
                'launcher': 'mpirun',
                'environs': ['builtin'],
                'env_vars': OMPI_ROOT_ENV,
                'max_jobs': 1,
            }],
        },
        {
            'name': 'isochron-cluster',
            'descr': "the namespace cluster's Slurm (tools/cluster up N --slurm)",
            'hostnames': ['^$'],          # never chosen by host name: --system isochron-cluster:compute
            'modules_system': 'nomod',
            'partitions': [{
                'name': 'compute',
                'scheduler': 'squeue',
                'launcher': 'srun',
                'environs': ['builtin'],
                # across nodes: Open MPI 4.1's default one-sided component (osc rdma) makes no window over
                # TCP, so osc ucx (as tests/cluster/check_isochron.sh); ranks that busy-poll starve the
                # namespaces' TCP path (tools/cluster's header), so they yield when idle
                'env_vars': OMPI_ROOT_ENV + [['OMPI_MCA_osc', 'ucx'], ['OMPI_MCA_mpi_yield_when_idle', '1']],
                'max_jobs': 1,
                'time_limit': '5m',
            }],
        },
    ],
    'general': [{'check_search_path': [os.path.dirname(os.path.abspath(__file__))]}],
}
