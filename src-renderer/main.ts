import { mount } from 'svelte';

import App from './App.svelte';
import { connectBridge } from './lib/bridge.js';
import { AppState } from './state/app-state.svelte.js';

import './styles/global.css';

const state = new AppState(connectBridge());
mount(App, { target: document.getElementById('app')!, props: { app: state } });
void state.start();
