import { arrayOf, bool, int, nullable, obj, str, strings, uuid } from '../platform/contract';
import { idParam } from '../platform/http/routes';

const jsonDiff = obj({ added: strings, removed: strings, changed: strings });
const changed = arrayOf(obj({ key: str, fields: strings }));
const keyed = obj({ added: strings, removed: strings, changed });
/** A plan diff with the REST names. */
const planDiff = obj({
  modules: keyed,
  steps: obj({ added: strings, removed: strings, changed, reordered: bool }),
  configuration: jsonDiff,
  design_system: jsonDiff,
  sections_touched: strings,
});
const side = nullable(obj({ change: { type: 'string', enum: ['added', 'removed', 'changed'] }, fields: strings }));
const keyComparison = obj({ key: str, ahead: side, behind: side, conflict: bool });

export const compareContract = {
  compare: {
    summary: 'A fork vs its parent since the fork point: ahead/behind per module and step',
    tags: ['lineage'],
    params: idParam('id'),
    response: {
      200: obj({
        blueprint_id: uuid,
        parent: obj({ id: uuid, slug: str, name: str }),
        base_version: nullable(int),
        parent_version: nullable(int),
        status: { type: 'string', enum: ['identical', 'ahead', 'behind', 'diverged'] },
        ahead: planDiff,
        behind: planDiff,
        modules: arrayOf(keyComparison),
        steps: arrayOf(keyComparison),
      }),
    },
  },
};
