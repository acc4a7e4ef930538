"use strict";(self.rspackChunkdsh_notebook=self.rspackChunkdsh_notebook||[]).push([[700],{646(e,t,r){var o=r(601),n=r.n(o),a=r(314),i=(r.n(a))()(n());i.push([e.id,`/* dsh-notebook: the waiting signal (toolbar / status-bar button, tab badge). */
/* fixed colours, not the theme's: a dark theme's light font colour on a light orange read at
   1.3:1. Dark text on light orange is about 15:1 in every theme (a browser test computes it). */
.dsh-waiting {
  border: 1px solid #e65100;
  border-radius: 10px;
  background: #ffe0b2;
  color: #1a1a1a;
  font-size: var(--jp-ui-font-size1, 13px);
  line-height: 18px;
  padding: 0 8px;
  margin: 2px 4px;
  cursor: pointer;
}

.dsh-waiting.lm-mod-hidden {
  display: none;
}

.dsh-waiting-status {
  margin: 0 4px;
  line-height: 16px;
}

/* the tab badge: the count sits between the label and the close icon */
/* JupyterLab draws an inactive tab's separator with ::after (absolute, full width): every
   property it may set is reset here, so the badge stays a small pill in the flow beside the
   name and never a bar over it. Black on #f57c00: about 7.8:1. */
.lm-TabBar .lm-TabBar-tab.dsh-mod-waiting[data-dsh-waiting]::after {
  content: attr(data-dsh-waiting);
  position: static;
  inset: auto;
  transform: none;
  flex: 0 0 auto;
  width: auto;
  height: auto;
  order: 1;
  align-self: center;
  min-width: 14px;
  margin-left: 4px;
  padding: 0 4px;
  border: none;
  border-radius: 7px;
  background: #f57c00;
  color: #000;
  font-size: 10px;
  line-height: 14px;
  text-align: center;
}

.lm-TabBar-tab.dsh-mod-waiting .lm-TabBar-tabCloseIcon {
  order: 2;
}

/* agent cells: the bar under a %%dsh cell whose run wrote cells */
.dsh-agent-cells-bar {
  display: flex;
  align-items: center;
  gap: 8px;
  margin: 2px 0 4px var(--jp-cell-prompt-width, 64px);
  font-size: var(--jp-ui-font-size1, 13px);
  color: var(--jp-ui-font-color2, #616161);
}

.dsh-remove-run-cells {
  border: 1px solid var(--jp-border-color1, #bdbdbd);
  border-radius: 3px;
  background: var(--jp-layout-color1, #fff);
  color: var(--jp-ui-font-color1, #212121);
  font-size: var(--jp-ui-font-size1, 13px);
  padding: 0 8px;
  cursor: pointer;
}

/* dsh-notebook: Insert below / Copy on a settled transcript's Python code, Ask dsh on errors */
.dsh-nb-btn {
  border: 1px solid var(--jp-border-color1, #bdbdbd);
  border-radius: 3px;
  background: var(--jp-layout-color1, #fff);
  color: var(--jp-ui-font-color1, #333);
  font-size: var(--jp-ui-font-size0, 11px);
  line-height: 16px;
  padding: 0 6px;
  cursor: pointer;
}

.dsh-nb-btn:hover {
  border-color: var(--jp-brand-color1, #1976d2);
}

.dsh-nb-code-bar {
  display: flex;
  justify-content: flex-end;
  gap: 4px;
  margin: 2px 0;
}

.dsh-nb-ask {
  align-self: flex-start;
  flex: none;
  margin: 4px;
}

/* the waiting button's notice when the asking cell is not in the notebook any more */
.dsh-waiting-notice {
  position: absolute;
  top: 40px;
  right: 16px;
  z-index: 10;
  max-width: 560px;
  padding: 10px 12px;
  border: 1px solid var(--jp-warn-color1, #f57c00);
  border-radius: 4px;
  background: var(--jp-layout-color1, #fff);
  color: var(--jp-ui-font-color1, #222);
  font-size: var(--jp-ui-font-size1, 13px);
  box-shadow: 0 2px 8px rgb(0 0 0 / 20%);
}

.dsh-waiting-notice-text {
  white-space: pre-wrap;
  margin-bottom: 8px;
}
`,""]),r.d(t,{},{A:i})},314(e){e.exports=function(e){var t=[];return t.toString=function(){return this.map(function(t){var r="",o=void 0!==t[5];return t[4]&&(r+="@supports (".concat(t[4],") {")),t[2]&&(r+="@media ".concat(t[2]," {")),o&&(r+="@layer".concat(t[5].length>0?" ".concat(t[5]):""," {")),r+=e(t),o&&(r+="}"),t[2]&&(r+="}"),t[4]&&(r+="}"),r}).join("")},t.i=function(e,r,o,n,a){"string"==typeof e&&(e=[[null,e,void 0]]);var i={};if(o)for(var s=0;s<this.length;s++){var c=this[s][0];null!=c&&(i[c]=!0)}for(var d=0;d<e.length;d++){var p=[].concat(e[d]);o&&i[p[0]]||(void 0!==a&&(void 0===p[5]||(p[1]="@layer".concat(p[5].length>0?" ".concat(p[5]):""," {").concat(p[1],"}")),p[5]=a),r&&(p[2]&&(p[1]="@media ".concat(p[2]," {").concat(p[1],"}")),p[2]=r),n&&(p[4]?(p[1]="@supports (".concat(p[4],") {").concat(p[1],"}"),p[4]=n):p[4]="".concat(n)),t.push(p))}},t}},601(e){e.exports=function(e){return e[1]}},72(e){var t=[];function r(e){for(var r=-1,o=0;o<t.length;o++)if(t[o].identifier===e){r=o;break}return r}function o(e,o){for(var n={},a=[],i=0;i<e.length;i++){var s=e[i],c=o.base?s[0]+o.base:s[0],d=n[c]||0,p="".concat(c," ").concat(d);n[c]=d+1;var l=r(p),u={css:s[1],media:s[2],sourceMap:s[3],supports:s[4],layer:s[5]};if(-1!==l)t[l].references++,t[l].updater(u);else{var f=function(e,t){var r=t.domAPI(t);return r.update(e),function(t){t?(t.css!==e.css||t.media!==e.media||t.sourceMap!==e.sourceMap||t.supports!==e.supports||t.layer!==e.layer)&&r.update(e=t):r.remove()}}(u,o);o.byIndex=i,t.splice(i,0,{identifier:p,updater:f,references:1})}a.push(p)}return a}e.exports=function(e,n){var a=o(e=e||[],n=n||{});return function(e){e=e||[];for(var i=0;i<a.length;i++){var s=r(a[i]);t[s].references--}for(var c=o(e,n),d=0;d<a.length;d++){var p=r(a[d]);0===t[p].references&&(t[p].updater(),t.splice(p,1))}a=c}}},659(e){var t={};e.exports=function(e,r){var o=function(e){if(void 0===t[e]){var r=document.querySelector(e);if(window.HTMLIFrameElement&&r instanceof window.HTMLIFrameElement)try{r=r.contentDocument.head}catch(e){r=null}t[e]=r}return t[e]}(e);if(!o)throw Error("Couldn't find a style target. This probably means that the value for the 'insert' parameter is invalid.");o.appendChild(r)}},540(e){e.exports=function(e){var t=document.createElement("style");return e.setAttributes(t,e.attributes),e.insert(t,e.options),t}},56(e,t,r){e.exports=function(e){var t=r.nc;t&&e.setAttribute("nonce",t)}},825(e){e.exports=function(e){if("u"<typeof document)return{update:function(){},remove:function(){}};var t=e.insertStyleElement(e);return{update:function(r){var o,n,a;o="",r.supports&&(o+="@supports (".concat(r.supports,") {")),r.media&&(o+="@media ".concat(r.media," {")),(n=void 0!==r.layer)&&(o+="@layer".concat(r.layer.length>0?" ".concat(r.layer):""," {")),o+=r.css,n&&(o+="}"),r.media&&(o+="}"),r.supports&&(o+="}"),(a=r.sourceMap)&&"u">typeof btoa&&(o+="\n/*# sourceMappingURL=data:application/json;base64,".concat(btoa(unescape(encodeURIComponent(JSON.stringify(a))))," */")),e.styleTagTransform(o,t,e.options)},remove:function(){var e;null===(e=t).parentNode||e.parentNode.removeChild(e)}}}},113(e){e.exports=function(e,t){if(t.styleSheet)t.styleSheet.cssText=e;else{for(;t.firstChild;)t.removeChild(t.firstChild);t.appendChild(document.createTextNode(e))}}},959(e,t,r){var o=r(72),n=r.n(o),a=r(825),i=r.n(a),s=r(659),c=r.n(s),d=r(56),p=r.n(d),l=r(540),u=r.n(l),f=r(113),h=r.n(f),b=r(646),g={};g.styleTagTransform=h(),g.setAttributes=p(),g.insert=c().bind(null,"head"),g.domAPI=i(),g.insertStyleElement=u(),n()(b.A,g),b.A&&b.A.locals&&b.A.locals}}]);