import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Which project's files start first. vitest's own order runs the projects by name, so reliability's
 * files, which hold the suite's longest tests (crash-safety's twenty kills: over 100 s in one test),
 * started last and ran alone at the end: 150 s past the rest on a fresh clone. The long ones first,
 * the short unit files last, where they fill the workers as the others end.
 */
const PROJECTS_FIRST_TO_LAST = ['reliability', 'e2e', 'infra', 'integration', 'unit'];

export class LongestProjectsFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // Within a project vitest's order stands (failed first, then longest by the last run, else largest).
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const index = PROJECTS_FIRST_TO_LAST.indexOf(spec.project.name);
      return index === -1 ? PROJECTS_FIRST_TO_LAST.length : index;
    };
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
