import type { DiagnosticBag } from '../diagnostics.ts';
import { POINTS } from '../model.ts';
import { type ParsedSpec, POINT_TITLES } from '../parse-sections.ts';
import { START } from '../spans.ts';

/**
 * The document's checks beyond what parsing reports: every point has its section, even one that
 * is not shown, so a reader knows it was left out on purpose.
 */
export function validateDocument(sections: ParsedSpec['sections'], bag: DiagnosticBag): void {
  POINTS.forEach((key, i) => {
    if (sections[key]) return;
    bag.report('missing-section', START, `Point ${i + 1} (${POINT_TITLES[key]}) has no section.`, {
      hint: `Add "## ${i + 1}. ${POINT_TITLES[key]}" with its table, or with "Not shown." to say it is absent on purpose.`,
    });
  });
}
