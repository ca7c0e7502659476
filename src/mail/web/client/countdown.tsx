// Time left until the inbox expires, ticking each second; calls `expired` once when it reaches zero.
import { useEffect, useState } from 'preact/hooks';
import { remaining } from './format.ts';

export function Countdown(props: { until: string | null; expired(): void }) {
  const [now, setNow] = useState(Date.now());
  const end = props.until ? Date.parse(props.until) : Infinity;
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  useEffect(() => {
    if (now >= end) props.expired();
  }, [now >= end]);
  if (end === Infinity) return <span class="countdown">never expires</span>;
  return (
    <span class="countdown" title={new Date(end).toLocaleString()}>
      expires in <time data-testid="countdown">{remaining(end - now)}</time>
    </span>
  );
}
