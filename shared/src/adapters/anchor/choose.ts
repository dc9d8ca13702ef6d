import type { Config } from '../../config/config.js';
import type { AnchorBackend } from '../../ports/anchor.port.js';
import type { Database } from '../../ports/database.port.js';
import { createLocalAnchor } from './local.adapter.js';

const EXPLORERS = {
  mainnet: 'https://cardanoscan.io/transaction/',
  preprod: 'https://preprod.cardanoscan.io/transaction/',
  preview: 'https://preview.cardanoscan.io/transaction/',
} as const;

/** Builds the anchor backend named by ANCHOR_BACKEND; called only from the container. */
export async function createAnchorBackend(config: Config, db: Database): Promise<AnchorBackend> {
  if (config.ANCHOR_BACKEND === 'cardano') {
    // Imported only when chosen: the Cardano library is a large WASM module most processes never need.
    const { createCardanoAnchor } = await import('./cardano.adapter.js');
    return createCardanoAnchor({
      apiUrl: config.CARDANO_API_URL!,
      ...(config.CARDANO_API_KEY ? { apiKey: config.CARDANO_API_KEY } : {}),
      network: config.CARDANO_NETWORK,
      signingKeyHex: config.CARDANO_SIGNING_KEY!.toLowerCase(),
      confirmations: config.CARDANO_CONFIRMATIONS,
      explorerUrl: config.CARDANO_EXPLORER_URL ?? EXPLORERS[config.CARDANO_NETWORK],
      // Slots are 1 s on every Cardano network we name, so the TTL is the timeout.
      ttlSlots: config.CARDANO_TX_TIMEOUT_S,
    });
  }
  return createLocalAnchor({ db, keyFile: config.anchorKeyFile, logId: `markless/${config.CODE_PREFIX}` });
}
