// The order files start in. Vitest runs the slowest first when its cache knows their durations, but
// a clean clone (CI) has no cache and it then starts the largest files first. The files listed here
// are the longest single files of the suite though short in lines: started first, the other worker
// runs the rest of the suite beside them, instead of one of them running alone at the end.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const FIRST: string[] = [];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const first = (file: TestSpecification) => FIRST.some((path) => file.moduleId.endsWith(path));
    return [...sorted.filter(first), ...sorted.filter((file) => !first(file))];
  }
}
