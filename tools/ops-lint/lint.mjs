// Lint the container and Kubernetes files (npm run lint:ops). No image build or cluster is needed:
//  - Dockerfile, Dockerfile.gpu: dockerfilelint, plus this project's own rules (multi-stage,
//    non-root final stage, no compilers in the final stage, no npm install at container start);
//  - k8s/**/*.yaml: every document validated against the Kubernetes (kubernetes-models) and
//    KEDA (@kubernetes-models/keda) JSON schemas bundled in those packages;
//  - docker-compose.yml: parses, every build names a Dockerfile that exists, no install at start.
// Exits non-zero on any finding.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, parse } from 'yaml';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const problems = [];
const ok = [];

// --- Dockerfiles ---
for (const file of ['Dockerfile', 'Dockerfile.gpu']) {
  const full = path.join(root, file);
  let report;
  try {
    report = JSON.parse(execFileSync(path.join(here, 'node_modules/.bin/dockerfilelint'), ['-o', 'json', full], { encoding: 'utf8' }));
  } catch (e) {
    report = JSON.parse(e.stdout);
  }
  const issues = report.files.flatMap((f) => f.issues);
  for (const i of issues) problems.push(`${file}:${i.line} [dockerfilelint ${i.category}] ${i.title}: ${i.content}`);
  const text = readFileSync(full, 'utf8');
  const stages = text.split(/^FROM /m).slice(1);
  const final = stages.at(-1);
  if (stages.length < 2) problems.push(`${file}: not multi-stage`);
  if (!/^USER (?!root\b|0\b)\S+/m.test(final)) problems.push(`${file}: final stage does not switch to a non-root USER`);
  if (/\b(g\+\+|gcc|make|build-essential|python3)\b/.test(final.replace(/^#.*$/gm, '')))
    problems.push(`${file}: final stage installs build tools`);
  if (/npm (ci|install)/.test(final.replace(/^#.*$/gm, ''))) problems.push(`${file}: final stage runs npm install`);
  ok.push(`${file}: dockerfilelint ${issues.length} issue(s); ${stages.length} stages; final stage non-root, no build tools`);
}

// --- Kubernetes manifests ---
const kinds = {
  'v1/ConfigMap': 'kubernetes-models/v1/ConfigMap',
  'v1/Service': 'kubernetes-models/v1/Service',
  'apps/v1/Deployment': 'kubernetes-models/apps/v1/Deployment',
  'policy/v1/PodDisruptionBudget': 'kubernetes-models/policy/v1/PodDisruptionBudget',
  'autoscaling/v2/HorizontalPodAutoscaler': 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler',
  'keda.sh/v1alpha1/ScaledObject': '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject',
};
const walk = (d) => readdirSync(d).flatMap((f) => (statSync(path.join(d, f)).isDirectory() ? walk(path.join(d, f)) : [path.join(d, f)]));
const deployments = new Set();
const targets = [];
for (const file of walk(path.join(root, 'k8s')).filter((f) => f.endsWith('.yaml'))) {
  const rel = path.relative(root, file);
  for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
    if (doc.errors.length) {
      problems.push(`${rel}: YAML: ${doc.errors[0].message}`);
      continue;
    }
    const obj = doc.toJS();
    if (!obj) continue;
    const key = `${obj.apiVersion}/${obj.kind}`;
    const mod = kinds[key];
    if (!mod) {
      problems.push(`${rel}: ${key} has no bundled schema here`);
      continue;
    }
    const Model = (await import(mod))[obj.kind];
    try {
      new Model(obj).validate();
      ok.push(`${rel}: ${key} ${obj.metadata?.name} valid`);
    } catch (e) {
      problems.push(`${rel}: ${key} ${obj.metadata?.name}: ${e.message.split('\n').slice(0, 4).join(' | ')}`);
    }
    if (obj.kind === 'Deployment') {
      deployments.add(obj.metadata.name);
      const labels = obj.spec.template.metadata.labels;
      for (const [k, v] of Object.entries(obj.spec.selector.matchLabels))
        if (labels[k] !== v) problems.push(`${rel}: ${obj.metadata.name} selector does not match its pod labels`);
      for (const c of obj.spec.template.spec.containers)
        if (!c.readinessProbe) problems.push(`${rel}: ${obj.metadata.name}/${c.name} has no readinessProbe`);
    }
    if (obj.kind === 'ScaledObject') targets.push([rel, obj.spec.scaleTargetRef.name]);
    if (obj.kind === 'HorizontalPodAutoscaler') targets.push([rel, obj.spec.scaleTargetRef.name]);
  }
}
for (const [rel, t] of targets) if (!deployments.has(t)) problems.push(`${rel}: scales ${t}, which no Deployment defines`);

// --- docker-compose.yml ---
const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true });
for (const [name, svc] of Object.entries(compose.services)) {
  if (svc.build && !existsSync(path.join(root, svc.build.context ?? '.', svc.build.dockerfile ?? 'Dockerfile')))
    problems.push(`docker-compose.yml: ${name} builds a missing Dockerfile`);
  if (/setup\.sh|npm (ci|install)|apt-get/.test(JSON.stringify(svc.command ?? '')))
    problems.push(`docker-compose.yml: ${name} installs at start`);
}
ok.push(`docker-compose.yml: ${Object.keys(compose.services).length} services parse; builds name existing Dockerfiles`);

for (const line of ok) console.log(`ok   ${line}`);
for (const line of problems) console.log(`FAIL ${line}`);
console.log(`${ok.length} ok, ${problems.length} problem(s)`);
process.exit(problems.length ? 1 : 0);
