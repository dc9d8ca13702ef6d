/** One measured residue as the external measurement store reports it. */
export interface StoredMeasurement {
  analyte: string;
  value: number;
  unit: string;
  commodity?: string;
}

/** A stamp: one sample's measurements, identified by its stamp id. */
export interface Stamp {
  stamp_id: string;
  commodity?: string;
  measurements: StoredMeasurement[];
}

/**
 * The external store that holds measurements behind stamp ids (RESIDUE_STORE_URL). Any failure
 * (unreachable, timeout, cut connection, non-2xx, malformed body, unknown stamp) rejects; the
 * residue service turns every rejection into the verdict UNKNOWN (fail-closed).
 */
export interface ResidueStore {
  readonly kind: string;
  fetchStamp(stampId: string): Promise<Stamp>;
}
