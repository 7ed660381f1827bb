import { useRoute } from './routing';
import { Sidebar } from '../components/Sidebar';
import { ConnectionBanner } from '../components/ConnectionBanner';
import { WorkflowsScreen } from '../screens/WorkflowsScreen';
import { RunsScreen } from '../screens/RunsScreen';
import { RunScreen } from '../screens/RunScreen';

export function App() {
  const route = useRoute();
  return (
    <div className="shell">
      <Sidebar route={route} />
      <main className="main">
        <ConnectionBanner />
        {route.name === 'workflows' && <WorkflowsScreen />}
        {route.name === 'runs' && <RunsScreen />}
        {route.name === 'run' && <RunScreen key={route.runId} runId={route.runId} tab={route.tab} />}
      </main>
    </div>
  );
}
