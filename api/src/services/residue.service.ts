import type { Lang } from '../../../shared/src/domain/messages.js';
import type { MrlTable } from '../../../shared/src/domain/residue/limits.js';
import type { Logger } from '../../../shared/src/logger.js';
import type { ResidueStore } from '../../../shared/src/ports/residue-store.port.js';
import {
  interpret,
  unresolved,
  UNITS,
  type InterpretInput,
  type Measurement,
  type Unit,
} from '../../../shared/src/domain/residue/interpret.js';
import type { CareService } from './care.service.js';

/**
 * Residue interpretation (read-only: never measures, anchors or writes). Limits come from the
 * MRL file; stamps are resolved through the external measurement store, and every failure of
 * that store (none configured, unreachable, cut mid-answer, timeout, bad body, unknown stamp)
 * gives the verdict UNKNOWN: fail-closed, never a guess and never an error status.
 */
export interface ResidueDeps {
  /** The external measurement store (RESIDUE_STORE_URL), or null when none is configured. */
  store: Pick<ResidueStore, 'fetchStamp'> | null;
  /** Reads the MRL table (RESIDUE_MRL_FILE); read once, on first use. */
  loadTable: () => Promise<MrlTable>;
  care: Pick<CareService, 'getCatalogue'>;
  logger: Pick<Logger, 'warn'>;
}

export function createResidueService(deps: ResidueDeps) {
  let table: MrlTable | null = null;
  const getTable = async () => (table ??= await deps.loadTable());

  return {
    async interpret(input: InterpretInput, lang: Lang) {
      return interpret(input, await getTable(), await deps.care.getCatalogue(), lang);
    },

    async interpretByStamps(input: { stamps: string[]; commodity?: string; region?: string }, lang: Lang) {
      const t = await getTable();
      const store = deps.store;
      if (!store) return { ...unresolved(t, lang), resolved: false };
      let measurements: Measurement[];
      try {
        const stamps = await Promise.all(input.stamps.map((id) => store.fetchStamp(id)));
        measurements = stamps.flatMap((s) =>
          s.measurements.map((m) => {
            const unit = m.unit.trim().toLowerCase() as Unit;
            if (!UNITS.includes(unit)) throw new Error(`unknown unit ${m.unit}`);
            return { analyte: m.analyte, value: m.value, unit, commodity: m.commodity ?? s.commodity };
          }),
        );
      } catch (err) {
        deps.logger.warn({ err, stamps: input.stamps }, 'residue store failed: verdict UNKNOWN');
        return { ...unresolved(t, lang), resolved: false };
      }
      if (measurements.length === 0) return { ...unresolved(t, lang), resolved: false };
      return {
        ...interpret({ commodity: input.commodity, region: input.region, measurements }, t, await deps.care.getCatalogue(), lang),
        resolved: true,
      };
    },
  };
}

export type ResidueService = ReturnType<typeof createResidueService>;
