// Validates each item of a Kubernetes v1 List (the file given) against the Kubernetes API's
// OpenAPI schema as the npm package kubernetes-models carries it: types, required fields, enums
// and formats (it does not reject a field the schema does not know). Prints one line per item;
// exits 1 when any is invalid. Run from a directory whose node_modules holds kubernetes-models.
import { readFileSync } from 'node:fs';
import { Pod } from 'kubernetes-models/v1/Pod';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';

const kinds = { Pod, ConfigMap, Service, Deployment, NetworkPolicy };
const list = JSON.parse(readFileSync(process.argv[2], 'utf8'));
let bad = 0;
if (list.apiVersion !== 'v1' || list.kind !== 'List' || !Array.isArray(list.items)) {
  console.log('not a v1 List');
  process.exit(1);
}
for (const item of list.items) {
  const Kind = kinds[item.kind];
  const name = `${item.kind}/${item.metadata && item.metadata.name}`;
  if (!Kind) { console.log(`${name}: unknown kind`); bad++; continue; }
  try {
    new Kind(item).validate();
    console.log(`${name}: valid`);
  } catch (e) {
    console.log(`${name}: invalid: ${e.message}`);
    bad++;
  }
}
process.exit(bad ? 1 : 0);
