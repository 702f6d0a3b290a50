#!/usr/bin/env bats
# The Kubernetes fleet (issue 16), written and checked, not run: every
# document of configs/k8s parses (python3-yaml) and has the structure the
# fleet needs - Indexed Jobs of one GPU pod per node writing a database
# named by node and index to the shared volume, and a merge Job.
load helper

setup() { ax_setup; }

# py CODE: python3 with every document of configs/k8s as `docs`, a list
# of (file name, document).
py() {
	python3 -c "import glob, os, yaml
docs = [(os.path.basename(f), d)
        for f in sorted(glob.glob('configs/k8s/*.yaml'))
        for d in yaml.safe_load_all(open(f)) if d is not None]
jobs = {d['metadata']['name']: (f, d) for f, d in docs if d['kind'] == 'Job'}
def pod(job): return jobs[job][1]['spec']['template']['spec']
def command(job): return ' '.join(pod(job)['containers'][0]['command'])
$1"
}

@test "every document parses; the Jobs are batch/v1 with Never restarts" {
	py '
assert len(docs) >= 4, docs
names = {f for f, _ in docs}
assert {"axbench-job.yaml", "axbench-job-amd.yaml",
        "axbench-merge-job.yaml", "axbench-pvc.yaml"} <= names, names
for name, (f, d) in jobs.items():
    assert d["apiVersion"] == "batch/v1", (f, d["apiVersion"])
    assert pod(name)["restartPolicy"] == "Never", f
assert set(jobs) == {"axbench-fleet", "axbench-fleet-amd", "axbench-merge"}'
}

@test "the benchmark Jobs: Indexed, one pod per node, one GPU of the vendor each" {
	py '
for job, gpu in (("axbench-fleet", "nvidia.com/gpu"),
                 ("axbench-fleet-amd", "amd.com/gpu")):
    spec = jobs[job][1]["spec"]
    assert spec["completionMode"] == "Indexed", job
    assert spec["completions"] == spec["parallelism"] >= 1, spec
    c = pod(job)["containers"][0]
    assert c["resources"]["limits"] == {gpu: 1}, c["resources"]
    anti = pod(job)["affinity"]["podAntiAffinity"]
    term = anti["requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert term["topologyKey"] == "kubernetes.io/hostname", term
    labels = jobs[job][1]["spec"]["template"]["metadata"]["labels"]
    assert term["labelSelector"]["matchLabels"].items() <= labels.items()
    env = {e["name"]: e for e in c["env"]}
    assert env["NODE_NAME"]["valueFrom"]["fieldRef"]["fieldPath"] == \
        "spec.nodeName"
    cmd = command(job)
    assert "axbench" in cmd and " run --profile " in cmd, cmd
    assert "/results/db/${NODE_NAME}-${JOB_COMPLETION_INDEX}.db" in cmd, cmd'
}

@test "the merge Job runs db merge then report on the same volume" {
	py '
cmd = command("axbench-merge")
assert "axbench db merge /results/merged.db /results/db/*.db" in cmd, cmd
assert "axbench --db /results/merged.db report -o /results/report.html" \
    in cmd, cmd
assert cmd.index("db merge") < cmd.index("report"), cmd
assert "gpu" not in str(pod("axbench-merge")), "the merge needs no GPU"
pvc = [d for f, d in docs if d["kind"] == "PersistentVolumeClaim"][0]
assert "ReadWriteMany" in pvc["spec"]["accessModes"]
for job in jobs:
    c = pod(job)["containers"][0]
    assert c["volumeMounts"] == [{"name": "results", "mountPath": "/results"}]
    vols = {v["name"]: v for v in pod(job)["volumes"]}
    assert vols["results"]["persistentVolumeClaim"]["claimName"] == \
        pvc["metadata"]["name"], job'
}

@test "the shell commands parse" {
	py '
import subprocess
for job in jobs:
    c = pod(job)["containers"][0]["command"]
    assert c[:2] == ["/bin/sh", "-c"], c
    subprocess.run(["sh", "-n", "-c", c[2]], check=True)'
}
