/**
 * Strict mocks for service specs, as Immich's automocks: a port or repository of type `T` holding
 * only the members a test gives it. Any other member is a function that throws when called, so a
 * service that calls something its test did not expect fails that test instead of getting
 * `undefined` (reading a member is not a call: `port.pause(check(name))` reads `pause` before
 * `check` throws).
 *
 * ```ts
 * const grants = strictMock<GrantsRepo>({ revoke: vi.fn(async () => 0) });
 * const service = createGrantsService({ db: strictMock<Database>(), grants });
 * ```
 *
 * Members that tooling reads to inspect a value (symbols, `then` when it is awaited, the matchers'
 * `asymmetricMatch`, a printer's `toJSON`, …) answer `undefined` rather than throwing.
 */
const INSPECTED = new Set([
  'then',
  'asymmetricMatch',
  'toJSON',
  '$$typeof',
  'nodeType',
  'constructor',
  'tagName',
  '@@__IMMUTABLE_ITERABLE__@@',
]);

export function strictMock<T extends object>(impl: Partial<T> = {}, name = 'strict mock'): T {
  return new Proxy(impl as T, {
    get(target, prop, receiver) {
      if (prop in target) return Reflect.get(target, prop, receiver) as unknown;
      if (typeof prop === 'symbol' || INSPECTED.has(prop)) return undefined;
      return () => {
        throw new Error(`${name}: unexpected call of .${prop}() (stub it in the test if the service should call it)`);
      };
    },
  });
}
