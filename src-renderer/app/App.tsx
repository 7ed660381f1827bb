import { useRoute } from './routing';
import { Sidebar } from '../components/Sidebar';
import { ConnectionBanner } from '../components/ConnectionBanner';
import { WorkflowsScreen } from '../screens/WorkflowsScreen';
import { RunsScreen } from '../screens/RunsScreen';
import { RunScreen } from '../screens/RunScreen';
import { WorkflowScreen } from '../screens/workflow/WorkflowScreen';
import { EditorScreen } from '../screens/editor/EditorScreen';
import { SettingsScreen } from '../screens/settings/SettingsScreen';
import { RegistryScreen } from '../screens/registry/RegistryScreen';
import { LearningScreen } from '../screens/learning/LearningScreen';
import { LearningExamplePage } from '../screens/learning/LearningExamplePage';
import { InterventionsScreen } from '../screens/interventions/InterventionsScreen';
import { WaitingProvider } from '../screens/interventions/use-waiting';

export function App() {
  const route = useRoute();
  return (
    // One view of what waits for a person, shared by the sidebar, the title, the cards and the Interventions view.
    <WaitingProvider>
      <div className="shell">
        <Sidebar route={route} />
        <main className="main">
          <ConnectionBanner />
          {route.name === 'workflows' && <WorkflowsScreen />}
          {route.name === 'workflow' && <WorkflowScreen key={route.workflowId} workflowId={route.workflowId} />}
          {/* One key for both: a new workflow saved (or one renamed) stays in the same editor as its address changes. */}
          {(route.name === 'workflow-new' || route.name === 'workflow-edit') && <EditorScreen key="editor" workflowId={route.name === 'workflow-edit' ? route.workflowId : undefined} openRun={route.name === 'workflow-edit' && route.run} showRun={route.name === 'workflow-edit' ? route.showRun : undefined} />}
          {route.name === 'runs' && <RunsScreen />}
          {route.name === 'run' && <RunScreen key={route.runId} runId={route.runId} tab={route.tab} focusEvent={route.event} />}
          {route.name === 'learning' && (route.exampleId === undefined ? <LearningScreen /> : <LearningExamplePage exampleId={route.exampleId} />)}
          {route.name === 'registry' && <RegistryScreen />}
          {route.name === 'settings' && <SettingsScreen />}
          {route.name === 'interventions' && <InterventionsScreen />}
        </main>
      </div>
    </WaitingProvider>
  );
}
