const PALETTE = ['#4c6ef5', '#12b886', '#fab005', '#fa5252', '#7950f2', '#15aabf', '#fd7e14', '#82c91e', '#e64980', '#868e96'];

/** The usual kinds get colours far apart; any other word a stable one from its hash. */
const KNOWN: Record<string, string> = {
  frontend: '#4c6ef5',
  backend: '#12b886',
  data: '#fab005',
  service: '#7950f2',
  infra: '#868e96',
  auth: '#fa5252',
  api: '#15aabf',
};

/** A stable colour per module kind. */
export function kindColor(kind: string): string {
  if (KNOWN[kind]) return KNOWN[kind];
  let h = 0;
  for (const c of kind) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return PALETTE[h % PALETTE.length]!;
}

/** The ecosystem zoom's composition bar: one segment per module kind, as wide as its share. */
export function CompositionBar({ composition }: { composition: { kind: string; count: number }[] }) {
  const total = composition.reduce((s, c) => s + c.count, 0);
  const text = composition.map((c) => `${c.count} ${c.kind}`).join(', ');
  return (
    <div>
      <div className="composition" role="img" aria-label={`Modules by kind: ${text || 'none'}`} data-testid="composition-bar">
        {composition.map((c) => (
          <span key={c.kind} style={{ width: `${(c.count / Math.max(total, 1)) * 100}%`, background: kindColor(c.kind) }} title={`${c.kind}: ${c.count}`} />
        ))}
      </div>
      <div className="legend" aria-hidden="true">
        {composition.map((c) => (
          <span key={c.kind}>
            <i style={{ background: kindColor(c.kind) }} />
            {c.kind} {c.count}
          </span>
        ))}
      </div>
    </div>
  );
}
