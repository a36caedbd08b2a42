// Property tests: `test.prop(arbitraries, params)(name, property)` is a vitest test that runs
// `property` on the values fast-check draws from the arbitraries, a tuple of them (the property takes
// one argument each) or a record (it takes one object). fast-check shrinks a failure and names its seed
// and path to replay it. This is the part of @fast-check/vitest's API the suite used; importing that
// package walked every chain of vitest's test API (`skip.only.concurrent...`), ~3 s per worker.
import fc, { type Arbitrary, type Parameters } from 'fast-check';
import { test as vitestTest } from 'vitest';

export { fc };

type PropertyTest<Args extends unknown[]> = (name: string, property: (...args: Args) => unknown, timeout?: number) => void;

// Typed as fast-check's own property(): the values are inferred through the arbitraries' mapped type.
function prop<Ts extends [unknown, ...unknown[]]>(arbitraries: { [K in keyof Ts]: Arbitrary<Ts[K]> }, params?: Parameters<Ts>): PropertyTest<Ts>;
function prop<R extends Record<string, unknown>>(arbitraries: { [K in keyof R]: Arbitrary<R[K]> }, params?: Parameters<[R]>): PropertyTest<[R]>;
function prop(arbitraries: Arbitrary<unknown>[] | Record<string, Arbitrary<unknown>>, params?: object): PropertyTest<[unknown]> {
  const drawn: Arbitrary<unknown>[] = Array.isArray(arbitraries) ? arbitraries : [fc.record(arbitraries)];
  return (name, property, timeout) =>
    vitestTest(
      name,
      async () => {
        const checked = fc.asyncProperty(...(drawn as [Arbitrary<unknown>]), async (...args: unknown[]) => {
          await (property as (...values: unknown[]) => unknown)(...args);
        });
        // The values reach the property as drawn; params were typed for them by the overloads.
        await fc.assert(checked, params as Parameters<[unknown, ...unknown[]]>);
      },
      timeout,
    );
}

export const test = { prop };
