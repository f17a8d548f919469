import { describe, expect, it } from 'vitest';
import { scheduledEvent, startSchedule } from '../../local/schedules';

describe('startSchedule', () => {
  it('runs once at start, then on every interval, and stop() waits for the run in progress', async () => {
    // Prepare: the third run is held open until the test lets it end
    let runs = 0;
    let running = false;
    const order: string[] = [];
    let releaseThird!: () => void;
    const thirdHeld = new Promise<void>((resolve) => (releaseThird = resolve));
    let thirdStarted!: () => void;
    const third = new Promise<void>((resolve) => (thirdStarted = resolve));
    const task = async (): Promise<void> => {
      running = true;
      runs += 1;
      if (runs === 3) {
        thirdStarted();
        await thirdHeld;
        order.push('run ended');
      }
      running = false;
    };

    // Act
    const schedule = startSchedule('test', task, 50);
    const runsAtStart = runs; // the start-up run begins before startSchedule returns
    await third;
    const stopped = schedule.stop().then(() => order.push('stopped'));
    await new Promise((resolve) => setImmediate(resolve)); // stop() has had its chance to return early
    releaseThird();
    await stopped;

    // Assess
    expect(runsAtStart).toBe(1);
    expect(order).toEqual(['run ended', 'stopped']);
    expect(running).toBe(false);
    expect(runs).toBe(3); // none after stop()
  });

  it('keeps going after a failing run', async () => {
    const errors: unknown[] = [];
    let runs = 0;
    const schedule = startSchedule('failing', async () => {
      runs += 1;
      throw new Error('boom');
    }, 20, (err) => errors.push(err));

    await expect.poll(() => runs).toBeGreaterThanOrEqual(2);
    await schedule.stop();

    expect(errors.length).toBe(runs);
  });
});

describe('scheduledEvent', () => {
  it('looks like an EventBridge scheduled event', () => {
    const event = scheduledEvent('hookgate-sweeper', new Date('2025-01-02T03:04:05.678Z'));

    expect(event).toMatchObject({
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      time: '2025-01-02T03:04:05Z',
      resources: ['arn:aws:events:us-east-1:123456789012:rule/hookgate-sweeper'],
      detail: {},
    });
  });
});
